package io.tollgate.deploy;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.yaml.snakeyaml.Yaml;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

/**
 * The repository as files: where it is, its YAML documents, and the services' own settings.
 */
final class Repo {

    static final Path ROOT = findRoot();
    static final ObjectMapper YAML = new YAMLMapper();

    /** The deployables that have images, with the HTTP port each listens on. */
    static final Map<String, Integer> SERVICES = Map.of("gateway-service", 8080, "rules-service", 8081,
            "demo-backend", 9090);

    /** The services with a management interface (health, metrics, operations), with its port. */
    static final Map<String, Integer> MANAGEMENT = Map.of("gateway-service", 9000, "rules-service", 9001);

    private Repo() {
    }

    private static Path findRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isRegularFile(dir.resolve("tollgate"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException(
                    "no repository root (a folder holding ./tollgate) above " + Path.of("").toAbsolutePath());
        }
        return dir;
    }

    /** The port that serves a service's {@code /q/health}: its management interface, or its only port. */
    static int healthPort(String service) {
        return MANAGEMENT.getOrDefault(service, SERVICES.get(service));
    }

    static Path path(String relative) {
        return ROOT.resolve(relative);
    }

    static List<Path> yamlFiles(String folder) {
        try (Stream<Path> files = Files.walk(path(folder))) {
            return files.filter(f -> f.toString().endsWith(".yaml") || f.toString().endsWith(".yml")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Every document of a (multi-document) YAML file, as trees. SnakeYAML reads them because compose
     * files use merge keys ({@code <<: *anchor}), which Jackson's YAML parser leaves unresolved.
     */
    static List<JsonNode> documents(Path file) {
        List<JsonNode> docs = new ArrayList<>();
        try (Reader reader = Files.newBufferedReader(file)) {
            for (Object doc : new Yaml().loadAll(reader)) {
                if (doc != null) {
                    docs.add(YAML.valueToTree(doc));
                }
            }
            return docs;
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("cannot parse " + ROOT.relativize(file) + ": " + e.getMessage(), e);
        }
    }

    static JsonNode document(String relative) {
        List<JsonNode> docs = documents(path(relative));
        if (docs.size() != 1) {
            throw new IllegalStateException(relative + " holds " + docs.size() + " documents, expected 1");
        }
        return docs.get(0);
    }

    /** A JSON file as a tree. */
    static JsonNode json(String relative) {
        try {
            return new ObjectMapper().readTree(read(relative));
        } catch (IOException e) {
            throw new UncheckedIOException(relative + " is not JSON", e);
        }
    }

    static String read(String relative) {
        try {
            return Files.readString(path(relative));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
