package io.weightstore.bench.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;

/** {@code bench cluster}'s chart: GB/s bars, ideals grey, weightstore blue, nginx orange; whiskers span the runs. */
public final class ClusterChart {
    private static final int LABEL_WIDTH = 260;
    private static final int PLOT_WIDTH = 520;
    private static final int ROW_HEIGHT = 28;
    private static final int TOP = 40;
    private static final String GREY = "#999999";
    private static final String LIGHT_GREY = "#bbbbbb";
    private static final String BLUE = "#2b7bb9";
    private static final String LIGHT_BLUE = "#7fb3d9";
    private static final String ORANGE = "#e08a2c";
    private static final String LIGHT_ORANGE = "#f0bf85";

    private ClusterChart() {}

    /** One bar: a median and the runs' spread ({@code min} NaN for an ideal, which has none). */
    private record Bar(String label, Double value, double min, double max, String color) {}

    public static void write(Path file, ClusterReport report) throws IOException {
        List<ClusterReport.Run> runs = report.perRun();
        ClusterReport.Bed bed = report.bed();
        List<Bar> bars = new ArrayList<>();
        bars.add(new Bar("ideal: min(K, M) x NIC", report.idealGbPerSecond(), Double.NaN, Double.NaN, GREY));
        bars.add(bar("raw TCP streams, all at once", runs, r -> r.raw().aggregateGbPerSecond(), LIGHT_GREY));
        bars.add(bar("weightstore, all loading", runs, r -> r.fanIn().aggregateGbPerSecond(), BLUE));
        bars.add(bar("weightstore, first to last byte", runs, r -> r.fanIn().wallAggregateGbPerSecond(), LIGHT_BLUE));
        bars.add(new Bar("nginx ideal: 1 NIC", report.nginxIdealGbPerSecond(), Double.NaN, Double.NaN, GREY));
        bars.add(bar("nginx origin, all loading", runs, r -> r.nginx().aggregateGbPerSecond(), ORANGE));
        bars.add(bar("nginx origin, first to last byte", runs, r -> r.nginx().wallAggregateGbPerSecond(), LIGHT_ORANGE));
        bars.add(bar("one loader, on a node's host", runs, r -> r.sameHost().receivers().getFirst().gbPerSecond(), BLUE));
        bars.add(bar("one loader, remote", runs, r -> r.remote().receivers().getFirst().gbPerSecond(), LIGHT_BLUE));

        double max = bars.stream().mapToDouble(b -> Math.max(b.value() == null ? 0 : b.value(), Double.isNaN(b.max()) ? 0 : b.max()))
                .max().orElse(1);
        double scale = PLOT_WIDTH / (max * 1.1);
        int height = TOP + bars.size() * ROW_HEIGHT + 40;
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "font-family=\"sans-serif\" font-size=\"12\">%n", LABEL_WIDTH + PLOT_WIDTH + 80, height));
        svg.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\">%s</text>%n",
                escape(String.format(Locale.ROOT, "%d loaders, %d node hosts, NICs %s: GB/s", bed.loaders(), bed.nodes(),
                        ClusterTable.rate(bed.nicBitsPerSecond())))));
        for (int i = 0; i < bars.size(); i++) {
            Bar b = bars.get(i);
            int y = TOP + i * ROW_HEIGHT;
            double value = b.value() == null ? 0 : b.value();
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>%n", LABEL_WIDTH - 8, y + 17,
                    escape(b.label())));
            svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>%n", LABEL_WIDTH,
                    y + 5, value * scale, ROW_HEIGHT - 10, b.color()));
            double right = value;
            if (!Double.isNaN(b.min())) {
                svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"black\"/>%n",
                        LABEL_WIDTH + b.min() * scale, LABEL_WIDTH + b.max() * scale, y + ROW_HEIGHT / 2, y + ROW_HEIGHT / 2));
                right = Math.max(right, b.max());
            }
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\">%s</text>%n", LABEL_WIDTH + right * scale + 6, y + 17,
                    b.value() == null ? "n/a" : String.format(Locale.ROOT, "%.3f", b.value())));
        }
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" fill=\"#555\">bars: median GB/s (payload); whiskers: min to max"
                + " over runs; grey: NIC-limited ideals and the bed's raw TCP</text>%n", 10, height - 12));
        svg.append("</svg>\n");
        Files.writeString(file, svg);
    }

    /** A bar of a figure's median over the runs, with whiskers from the runs' min to max. */
    private static Bar bar(String label, List<ClusterReport.Run> runs, Function<ClusterReport.Run, Double> value, String color) {
        List<Double> values = runs.stream().map(value).filter(Objects::nonNull).toList();
        if (values.isEmpty()) {
            return new Bar(label, null, Double.NaN, Double.NaN, color);
        }
        return new Bar(label, ClusterReport.median(values), values.stream().mapToDouble(Double::doubleValue).min().orElseThrow(),
                values.stream().mapToDouble(Double::doubleValue).max().orElseThrow(), color);
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
