package io.tollgate.e2e.support;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * One scrape of a service's {@code /q/metrics} (Prometheus text, on its management interface): every sample with its name and
 * labels, so a test
 * can sum a counter over some of its labels and take the difference between two scrapes.
 */
public final class Metrics {

    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})? (\\S+)$");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    record Sample(String name, Map<String, String> labels, double value) {
    }

    private final List<Sample> samples;

    private Metrics(List<Sample> samples) {
        this.samples = samples;
    }

    /** What a process that has just started has counted: nothing. */
    public static Metrics none() {
        return new Metrics(List.of());
    }

    /** Scrapes the service's {@code /q/metrics} now. */
    public static Metrics of(JavaService service) {
        return parse(Http.get(service.managementUrl("/q/metrics"), Map.of()).body());
    }

    /** Scrapes each service's {@code /q/metrics} now, in order. */
    public static List<Metrics> ofEach(List<JavaService> services) {
        return services.stream().map(Metrics::of).toList();
    }

    static Metrics parse(String text) {
        List<Sample> samples = new ArrayList<>();
        for (String line : text.split("\n")) {
            Matcher sample = SAMPLE.matcher(line.strip());
            if (line.startsWith("#") || !sample.matches()) {
                continue;
            }
            Map<String, String> labels = new LinkedHashMap<>();
            if (sample.group(2) != null) {
                Matcher label = LABEL.matcher(sample.group(2));
                while (label.find()) {
                    labels.put(label.group(1), label.group(2));
                }
            }
            samples.add(new Sample(sample.group(1), labels, value(sample.group(3))));
        }
        return new Metrics(samples);
    }

    private static double value(String text) {
        return switch (text) {
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            default -> Double.parseDouble(text);
        };
    }

    /**
     * The sum of the samples named {@code name} whose labels include every given {@code label=value} pair;
     * 0 when there is none (a counter not yet incremented is not exported).
     */
    public double sum(String name, String... labels) {
        return matching(name, labels).mapToDouble(Sample::value).sum();
    }

    /**
     * Whether a sample is named {@code name} and carries the given {@code label=value} pairs (a metric the service
     * does not have is absent, not 0).
     */
    public boolean has(String name, String... labels) {
        return matching(name, labels).findAny().isPresent();
    }

    private Stream<Sample> matching(String name, String... labels) {
        Map<String, String> wanted = labels(labels);
        return samples.stream()
                .filter(s -> s.name().equals(name))
                .filter(s -> s.labels().entrySet().containsAll(wanted.entrySet()));
    }

    private static Map<String, String> labels(String... pairs) {
        Map<String, String> labels = new LinkedHashMap<>();
        for (String pair : pairs) {
            int eq = pair.indexOf('=');
            labels.put(pair.substring(0, eq), pair.substring(eq + 1));
        }
        return labels;
    }

    /** {@code sum(name, labels)} here minus the same in an earlier scrape. */
    public double since(Metrics earlier, String name, String... labels) {
        return sum(name, labels) - earlier.sum(name, labels);
    }
}
