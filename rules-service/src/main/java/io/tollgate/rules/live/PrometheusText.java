package io.tollgate.rules.live;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads the Prometheus text exposition format (version 0.0.4, what {@code /q/metrics} serves): one sample per
 * line, {@code name{label="value",...} value [timestamp]}, comments and blank lines skipped. Only the metric
 * names asked for are parsed; a line that does not parse is skipped, so one odd line loses one sample.
 */
final class PrometheusText {

    /** One sample: a metric name, its labels, its value. */
    record Sample(String name, Map<String, String> labels, double value) {
    }

    private PrometheusText() {
    }

    /** The samples of the metrics named {@code names}, in the order written. */
    static List<Sample> parse(String text, Set<String> names) {
        List<Sample> samples = new ArrayList<>();
        int start = 0;
        while (start < text.length()) {
            int end = text.indexOf('\n', start);
            if (end < 0) {
                end = text.length();
            }
            Sample sample = line(text.substring(start, end), names);
            if (sample != null) {
                samples.add(sample);
            }
            start = end + 1;
        }
        return samples;
    }

    private static Sample line(String line, Set<String> names) {
        if (line.isEmpty() || line.charAt(0) == '#') {
            return null;
        }
        int nameEnd = 0;
        while (nameEnd < line.length() && line.charAt(nameEnd) != '{' && line.charAt(nameEnd) != ' ') {
            nameEnd++;
        }
        String name = line.substring(0, nameEnd);
        if (!names.contains(name)) {
            return null;
        }
        Map<String, String> labels = new LinkedHashMap<>();
        int at = nameEnd;
        if (at < line.length() && line.charAt(at) == '{') {
            at = labels(line, at + 1, labels);
            if (at < 0) {
                return null;
            }
        }
        String[] rest = line.substring(at).trim().split(" +");
        Double value = value(rest[0]);
        return value == null ? null : new Sample(name, labels, value);
    }

    /** Reads {@code a="x",b="y"}} from {@code at} into {@code labels}; the index after the brace, -1 if malformed. */
    private static int labels(String line, int at, Map<String, String> labels) {
        while (at < line.length()) {
            char c = line.charAt(at);
            if (c == '}') {
                return at + 1;
            }
            if (c == ',' || c == ' ') {
                at++;
                continue;
            }
            int eq = line.indexOf('=', at);
            if (eq < 0 || eq + 1 >= line.length() || line.charAt(eq + 1) != '"') {
                return -1;
            }
            String key = line.substring(at, eq).trim();
            StringBuilder value = new StringBuilder();
            int i = eq + 2;
            for (; i < line.length() && line.charAt(i) != '"'; i++) {
                char v = line.charAt(i);
                if (v == '\\' && i + 1 < line.length()) {
                    char escaped = line.charAt(++i);
                    value.append(escaped == 'n' ? '\n' : escaped);
                } else {
                    value.append(v);
                }
            }
            if (i >= line.length()) {
                return -1;
            }
            labels.put(key, value.toString());
            at = i + 1;
        }
        return -1;
    }

    private static Double value(String text) {
        return switch (text) {
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            case "NaN" -> Double.NaN;
            default -> {
                try {
                    yield Double.parseDouble(text);
                } catch (NumberFormatException e) {
                    yield null;
                }
            }
        };
    }
}
