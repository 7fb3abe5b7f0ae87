package io.weightstore.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** A horizontal bar chart of medians with min-max whiskers, as a standalone SVG file. */
public final class SvgChart {
    private static final int LABEL_WIDTH = 260;
    private static final int PLOT_WIDTH = 520;
    private static final int ROW_HEIGHT = 28;
    private static final int TOP = 40;

    private SvgChart() {}

    public static void write(Path file, String title, List<Measurement> rows) throws IOException {
        double max = rows.stream().mapToDouble(Measurement::max).max().orElse(1);
        double scale = PLOT_WIDTH / (max * 1.1);
        int height = TOP + rows.size() * ROW_HEIGHT + 40;
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "font-family=\"sans-serif\" font-size=\"12\">%n", LABEL_WIDTH + PLOT_WIDTH + 80, height));
        svg.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\">%s</text>%n", escape(title)));
        for (int i = 0; i < rows.size(); i++) {
            Measurement m = rows.get(i);
            int y = TOP + i * ROW_HEIGHT;
            String color = m.path().startsWith("store") || m.path().startsWith("loader") ? "#2b7bb9"
                    : m.path().equals("memcpy") || m.path().equals("raw socket") ? "#999999" : "#e08a2c";
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>%n", LABEL_WIDTH - 8,
                    y + 17, escape(m.path())));
            svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>%n", LABEL_WIDTH,
                    y + 5, m.median() * scale, ROW_HEIGHT - 10, color));
            svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"black\"/>%n",
                    LABEL_WIDTH + m.min() * scale, LABEL_WIDTH + m.max() * scale, y + ROW_HEIGHT / 2, y + ROW_HEIGHT / 2));
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\">%.2f GB/s</text>%n", LABEL_WIDTH + m.max() * scale + 6,
                    y + 17, m.median()));
        }
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" fill=\"#555\">bars: median GB/s; whiskers: min to max over runs;"
                + " grey: ceilings, blue: weightstore, orange: other ways to load</text>%n", 10, height - 12));
        svg.append("</svg>\n");
        Files.writeString(file, svg);
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
