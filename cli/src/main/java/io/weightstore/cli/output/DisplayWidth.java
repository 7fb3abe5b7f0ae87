package io.weightstore.cli.output;

/**
 * The columns a string takes in a terminal: a model or checkpoint id may hold CJK characters, which
 * take two, or combining accents, which take none, and a table padded by {@code String.length}
 * shifted every column after them.
 */
final class DisplayWidth {
    private DisplayWidth() {}

    static int of(String text) {
        return text.codePoints().map(DisplayWidth::ofCodePoint).sum();
    }

    private static int ofCodePoint(int c) {
        int type = Character.getType(c);
        if (type == Character.NON_SPACING_MARK || type == Character.ENCLOSING_MARK || type == Character.FORMAT) {
            return 0;
        }
        return isWide(c) ? 2 : 1;
    }

    /** East Asian wide and fullwidth characters, and the emoji blocks terminals draw two columns wide. */
    private static boolean isWide(int c) {
        return c >= 0x1100 && (c <= 0x115F                   // Hangul Jamo initial consonants
                || c == 0x2329 || c == 0x232A                // angle brackets
                || c >= 0x2E80 && c <= 0xA4CF && c != 0x303F // CJK radicals through Yi
                || c >= 0xAC00 && c <= 0xD7A3                // Hangul syllables
                || c >= 0xF900 && c <= 0xFAFF                // CJK compatibility ideographs
                || c >= 0xFE30 && c <= 0xFE6F                // CJK compatibility forms
                || c >= 0xFF00 && c <= 0xFF60                // fullwidth forms
                || c >= 0xFFE0 && c <= 0xFFE6
                || c >= 0x1F300 && c <= 0x1F64F              // pictographs, emoticons
                || c >= 0x1F680 && c <= 0x1F6FF              // transport and map symbols
                || c >= 0x1F900 && c <= 0x1F9FF              // supplemental symbols and pictographs
                || c >= 0x1FA70 && c <= 0x1FAFF
                || c >= 0x20000 && c <= 0x3FFFD);            // CJK extension planes
    }
}
