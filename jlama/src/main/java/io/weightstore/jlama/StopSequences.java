package io.weightstore.jlama;

import java.util.List;
import java.util.function.Consumer;

/**
 * Generated text as it grows, cut before the first stop sequence. Text is passed on as soon as it
 * cannot be the start of a stop sequence; a tail that might be one is held back until the next
 * piece decides, so a streamed text never shows a stop sequence it later takes back.
 */
final class StopSequences {
    private final List<String> stops;
    private final Consumer<String> onText;
    private final int longest;
    private final StringBuilder text = new StringBuilder();
    private int passedOn;

    StopSequences(List<String> stops, Consumer<String> onText) {
        for (String stop : stops) {
            if (stop.isEmpty()) {
                throw new IllegalArgumentException("a stop sequence must not be empty");
            }
        }
        this.stops = List.copyOf(stops);
        this.onText = onText;
        this.longest = stops.stream().mapToInt(String::length).max().orElse(0);
    }

    /** Adds a piece; returns true when the text now contains a stop sequence (the text ends before it). */
    boolean append(String piece) {
        int before = text.length();
        text.append(piece);
        int cut = -1;
        for (String stop : stops) {
            // Earlier positions were searched when earlier pieces came; only matches reaching into this piece are new.
            int at = text.indexOf(stop, Math.max(0, before - stop.length() + 1));
            if (at >= 0 && (cut < 0 || at < cut)) {
                cut = at;
            }
        }
        if (cut >= 0) {
            text.setLength(cut);
            passOn(cut);
            return true;
        }
        passOn(text.length() - heldBack());
        return false;
    }

    /** Passes on what was held back: the text ended without completing a stop sequence. */
    void finish() {
        passOn(text.length());
    }

    String text() {
        return text.toString();
    }

    /** Length of the longest tail of the text that a stop sequence starts with. */
    private int heldBack() {
        for (int length = Math.min(longest - 1, text.length() - passedOn); length > 0; length--) {
            String tail = text.substring(text.length() - length);
            for (String stop : stops) {
                if (stop.startsWith(tail)) {
                    return length;
                }
            }
        }
        return 0;
    }

    private void passOn(int end) {
        if (end > passedOn) {
            onText.accept(text.substring(passedOn, end));
            passedOn = end;
        }
    }
}
