package io.weightstore.format;

import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.PatternSyntaxException;

/**
 * Files of a source directory left out of its checkpoint, named by globs over their paths relative to
 * the directory, '/' separated: {@code *} stays within a directory, {@code **} crosses them. A model
 * repository often holds its weights twice (a Llama's {@code original/} PyTorch files beside the
 * safetensors), and in a pool of memory the copy no engine reads costs as much as the one it does.
 */
public final class ExcludedFiles {
    public static final ExcludedFiles NONE = new ExcludedFiles(List.of(), List.of());

    private final List<String> globs;
    private final List<PathMatcher> matchers;

    private ExcludedFiles(List<String> globs, List<PathMatcher> matchers) {
        this.globs = globs;
        this.matchers = matchers;
    }

    /** @throws IllegalArgumentException naming the first glob that is none */
    public static ExcludedFiles of(List<String> globs) {
        List<PathMatcher> matchers = new ArrayList<>(globs.size());
        for (String glob : globs) {
            if (glob.isBlank()) {
                throw new IllegalArgumentException("an exclude glob is empty; give a path pattern such as 'original/**'");
            }
            try {
                matchers.add(FileSystems.getDefault().getPathMatcher("glob:" + glob));
            } catch (PatternSyntaxException e) {
                throw new IllegalArgumentException("exclude glob '" + glob + "' is not a glob: " + e.getDescription() + " at index "
                        + e.getIndex(), e);
            }
        }
        return new ExcludedFiles(List.copyOf(globs), List.copyOf(matchers));
    }

    /** Whether the file at {@code relative} ('/' separated) is left out. */
    public boolean excludes(String relative) {
        Path path = Path.of(relative);
        return matchers.stream().anyMatch(m -> m.matches(path));
    }

    public List<String> globs() {
        return globs;
    }
}
