package io.weightstore.format;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Files of a source directory left out of its checkpoint, named by patterns over their paths relative
 * to the directory, '/' separated, matched as the Hugging Face hub client's own {@code --exclude} matches
 * them (Python's {@code fnmatch}): {@code *} matches any run of characters, '/' included, {@code ?} one,
 * {@code [seq]} and {@code [!seq]} one of a set or not, and a pattern ending in '/' a directory's whole
 * content. A model repository often holds its weights twice (a Llama's {@code original/} PyTorch files
 * beside the safetensors), and in a pool of memory the copy no engine reads costs as much as the one it
 * does.
 */
public final class ExcludedFiles {
    public static final ExcludedFiles NONE = new ExcludedFiles(List.of(), List.of());

    private final List<String> patterns;
    private final List<Pattern> compiled;

    private ExcludedFiles(List<String> patterns, List<Pattern> compiled) {
        this.patterns = patterns;
        this.compiled = compiled;
    }

    /** @throws IllegalArgumentException for an empty pattern, which would leave out nothing a user could mean */
    public static ExcludedFiles of(List<String> patterns) {
        List<Pattern> compiled = new ArrayList<>(patterns.size());
        for (String pattern : patterns) {
            if (pattern.isBlank()) {
                throw new IllegalArgumentException("an exclude pattern is empty; give a path pattern such as 'original/*'");
            }
            compiled.add(translate(pattern.endsWith("/") ? pattern + "*" : pattern));
        }
        return new ExcludedFiles(List.copyOf(patterns), List.copyOf(compiled));
    }

    /** Whether the file at {@code relative} (to the source directory) is left out. */
    public boolean excludes(Path relative) {
        if (compiled.isEmpty()) {
            return false;
        }
        String path = slashSeparated(relative);
        return compiled.stream().anyMatch(p -> p.matcher(path).matches());
    }

    /** The patterns that left out none of {@code excluded}: a misspelt one would store what it was meant to leave out. */
    public List<String> unmatched(List<String> excluded) {
        List<String> unmatched = new ArrayList<>();
        for (int i = 0; i < patterns.size(); i++) {
            Pattern pattern = compiled.get(i);
            if (excluded.stream().noneMatch(path -> pattern.matcher(path).matches())) {
                unmatched.add(patterns.get(i));
            }
        }
        return unmatched;
    }

    public List<String> patterns() {
        return patterns;
    }

    private static String slashSeparated(Path relative) {
        return relative.toString().replace(relative.getFileSystem().getSeparator(), "/");
    }

    /** {@code fnmatch}'s translation: a '[' with no ']' after it is itself, and inside a set only '!' first and '-' are special. */
    private static Pattern translate(String pattern) {
        StringBuilder regex = new StringBuilder();
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            int close = c == '[' ? setEnd(pattern, i) : -1;
            if (c == '*') {
                regex.append(".*");
            } else if (c == '?') {
                regex.append('.');
            } else if (close > 0) {
                regex.append('[');
                int start = i + 1;
                if (pattern.charAt(start) == '!') {
                    regex.append('^');
                    start++;
                }
                for (int j = start; j < close; j++) {
                    char member = pattern.charAt(j);
                    regex.append(member == '-' || Character.isLetterOrDigit(member) ? String.valueOf(member) : "\\" + member);
                }
                regex.append(']');
                i = close;
            } else {
                regex.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return Pattern.compile(regex.toString(), Pattern.DOTALL);
    }

    /** Where the set opened at {@code open} ends, or -1 when it does not: a ']' right after '[' or '[!' is a member. */
    private static int setEnd(String pattern, int open) {
        int j = open + 1;
        if (j < pattern.length() && pattern.charAt(j) == '!') {
            j++;
        }
        if (j < pattern.length() && pattern.charAt(j) == ']') {
            j++;
        }
        return pattern.indexOf(']', j);
    }
}
