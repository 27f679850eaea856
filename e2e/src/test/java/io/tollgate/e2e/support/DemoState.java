package io.tollgate.e2e.support;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The demo of a {@link Stack} as {@code ./tollgate up} loads it on a new database (demo/rules.yaml, demo/tenants,
 * demo/clients.ndjson), loaded again over whatever a page changed: the demo's rules replace the set, clients and
 * tenants it lacks are deleted, the counters in Redis are dropped; then the gateways hold it all.
 */
public final class DemoState {

    private static final Path DEMO = Repo.path("demo");

    private final Stack stack;

    public DemoState(Stack stack) {
        this.stack = stack;
    }

    /** Makes the stack's state the loaded demo, and waits until every gateway holds it. */
    public void restore() {
        write("PUT", "/api/v1/rules", "application/yaml", read(DEMO.resolve("rules.yaml")));
        List<Path> tenants = demoTenants();
        Set<String> tenantIds = tenants.stream().map(DemoState::tenantId).collect(Collectors.toSet());
        for (Path tenant : tenants) {
            write("PUT", "/api/v1/tenants/" + tenantId(tenant), "application/json", read(tenant));
        }
        write("PUT", "/api/v1/clients", "application/x-ndjson", read(DEMO.resolve("clients.ndjson")));
        Set<String> demoDigests = demoKeys().stream().map(DemoState::sha256).collect(Collectors.toSet());
        for (String digest : listed("/api/v1/clients", "clients", "digest")) {
            if (!demoDigests.contains(digest)) {
                write("DELETE", "/api/v1/clients/digest/" + digest, "application/json", "");
            }
        }
        for (String tenant : listed("/api/v1/tenants", "tenants", "id")) {
            if (!tenantIds.contains(tenant)) {
                write("DELETE", "/api/v1/tenants/" + tenant, "application/json", "");
            }
        }
        for (String primary : stack.redis().primaries()) {
            flush(primary);
        }
        awaitGateways();
    }

    /** Waits until every gateway holds the rules service's rules version and directory sequence. */
    public void awaitGateways() {
        long version = stack.rulesVersion();
        long seq = directorySeq();
        for (JavaService gateway : stack.gateways()) {
            await(gateway.name() + " holds rules version " + version + " and directory seq " + seq)
                    .atMost(Duration.ofSeconds(30)).until(() -> holds(gateway, version, seq));
        }
    }

    private long directorySeq() {
        HttpResponse<String> page = Http.get(stack.rulesService().url("/api/v1/directory?since=0&limit=1"), Stack.ADMIN);
        return Long.parseLong(page.headers().firstValue("Tollgate-Directory-Seq").orElse("0"));
    }

    private static boolean holds(JavaService gateway, long version, long seq) {
        JsonNode checks = Stack.json(Http.get(gateway.managementUrl("/q/health/ready"), Map.of()).body()).path("checks");
        long rules = -1;
        long held = -1;
        for (JsonNode check : checks) {
            if (check.path("name").asText().equals("rules")) {
                rules = check.path("data").path("version").asLong(-1);
            } else if (check.path("name").asText().equals("directory")) {
                held = check.path("data").path("seq").asLong(-1);
            }
        }
        return rules >= version && held >= seq;
    }

    /** Every value of {@code field} in the entries of a listing, page by page. */
    private List<String> listed(String path, String array, String field) {
        List<String> values = new java.util.ArrayList<>();
        String cursor = null;
        do {
            String query = cursor == null ? "?limit=1000" : "?limit=1000&cursor=" + cursor;
            JsonNode page = Stack.json(Http.get(stack.rulesService().url(path + query), Stack.ADMIN).body());
            page.path(array).forEach(entry -> values.add(entry.path(field).asText()));
            cursor = page.path("next").isTextual() && !page.path("next").asText().isEmpty()
                    ? page.path("next").asText()
                    : null;
        } while (cursor != null);
        return values;
    }

    private void write(String method, String path, String type, String body) {
        Map<String, String> headers = new HashMap<>(Stack.ADMIN);
        headers.put("Content-Type", type);
        HttpResponse<String> answer = Http.send(method, stack.rulesService().url(path), headers, body);
        if (answer.statusCode() < 200 || answer.statusCode() > 299) {
            throw new IllegalStateException(method + " " + path + " answered " + answer.statusCode() + ": " + answer.body());
        }
    }

    private static void flush(String address) {
        try {
            Process flush = new ProcessBuilder("redis-cli", "-u", address, "FLUSHALL").redirectErrorStream(true).start();
            String said = new String(flush.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (flush.waitFor() != 0 || !said.equals("OK")) {
                throw new IllegalStateException("FLUSHALL on " + address + ": " + said);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static List<Path> demoTenants() {
        try (Stream<Path> files = Files.list(DEMO.resolve("tenants"))) {
            return files.filter(f -> f.toString().endsWith(".json")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String tenantId(Path file) {
        return file.getFileName().toString().replace(".json", "");
    }

    private static List<String> demoKeys() {
        return read(DEMO.resolve("clients.ndjson")).lines().filter(l -> !l.isBlank())
                .map(l -> Stack.json(l).path("key").asText()).toList();
    }

    private static String sha256(String key) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
