package io.weightstore.cli.output;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** A plain-text table with a header row; numeric columns are right-aligned. */
public final class Table {
    private final List<String> headers;
    private final boolean[] rightAligned;
    private final List<List<String>> rows = new ArrayList<>();

    public Table(String... headers) {
        this.headers = List.of(headers);
        this.rightAligned = new boolean[headers.length];
    }

    /** Right-aligns the named columns, for numbers. */
    public Table alignRight(String... columns) {
        for (String column : columns) {
            int index = headers.indexOf(column);
            if (index < 0) {
                throw new IllegalArgumentException("no such column: column=" + column);
            }
            rightAligned[index] = true;
        }
        return this;
    }

    public Table row(Object... cells) {
        if (cells.length != headers.size()) {
            throw new IllegalArgumentException("row has " + cells.length + " cells, table has " + headers.size() + " columns");
        }
        List<String> row = new ArrayList<>(cells.length);
        for (Object cell : cells) {
            row.add(printable(String.valueOf(cell)));
        }
        rows.add(row);
        return this;
    }

    public void print(PrintWriter out) {
        int[] widths = new int[headers.size()];
        for (int i = 0; i < widths.length; i++) {
            widths[i] = DisplayWidth.of(headers.get(i));
            for (List<String> row : rows) {
                widths[i] = Math.max(widths[i], DisplayWidth.of(row.get(i)));
            }
        }
        printRow(out, headers, widths);
        for (List<String> row : rows) {
            printRow(out, row, widths);
        }
        out.flush();
    }

    private void printRow(PrintWriter out, List<String> cells, int[] widths) {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < cells.size(); i++) {
            String cell = cells.get(i);
            String pad = " ".repeat(widths[i] - DisplayWidth.of(cell));
            line.append(rightAligned[i] ? pad + cell : cell + (i == cells.size() - 1 ? "" : pad));
            if (i < cells.size() - 1) {
                line.append("  ");
            }
        }
        out.println(line);
    }

    /** A cell on one line: a control character (a name written by another tool may hold any) shows as a backslash-u escape. */
    private static String printable(String cell) {
        if (cell.codePoints().noneMatch(Character::isISOControl)) {
            return cell;
        }
        StringBuilder shown = new StringBuilder(cell.length() + 8);
        cell.codePoints().forEach(c -> {
            if (Character.isISOControl(c)) {
                shown.append(String.format("\\u%04x", c));
            } else {
                shown.appendCodePoint(c);
            }
        });
        return shown.toString();
    }
}
