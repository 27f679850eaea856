package io.tollgate.rules.api;

import static io.tollgate.rules.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.tollgate.rules.TestDatabase;
import io.tollgate.rules.domain.DocBlocks;
import io.tollgate.rules.domain.DocBlocks.Block;

/**
 * Every {@code curl} call of the rules service (port 8081) in the user documentation runs against this service,
 * page by page, in the order written, each page from the state {@code ./tollgate up} leaves: the demo's rule
 * set, tenants and clients. A call must answer below 400, or the status its trailing {@code # expect <status>}
 * comment names. The admin token of the pages, {@code $TOLLGATE_ADMIN_TOKEN} (the one {@code ./tollgate up} made,
 * in the reader's environment) or dev mode's {@code dev-admin-token}, becomes the test profile's.
 */
@QuarkusTest
@WithTestResource(value = TestDatabase.class, scope = TestResourceScope.GLOBAL)
class DocumentedCallsTest {

    private static final String TOKEN_VARIABLE = "$TOLLGATE_ADMIN_TOKEN";
    private static final Set<String> DOCS_TOKENS = Set.of("Bearer " + TOKEN_VARIABLE, "Bearer dev-admin-token");
    private static final Pattern DOCS_SERVICE = Pattern.compile("https?://(127\\.0\\.0\\.1|localhost):8081");
    private static final Pattern EXPECT = Pattern.compile("#\\s*expect\\s+(\\d{3})");

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void everyDocumentedCallOfTheRulesServiceAnswersAsWritten() throws Exception {
        List<String> failures = new ArrayList<>();
        int calls = 0;
        for (Path page : DocBlocks.pages()) {
            List<Call> pageCalls = DocBlocks.of(page).stream()
                    .filter(b -> !b.notRun() && (b.language().equals("sh") || b.language().equals("bash")))
                    .flatMap(DocumentedCallsTest::calls).toList();
            if (pageCalls.isEmpty()) {
                continue;
            }
            loadTheDemo();
            for (Call call : pageCalls) {
                calls++;
                Answer answer = send(call);
                boolean asWritten = call.expected() == 0 ? answer.status() < 400 : answer.status() == call.expected();
                if (!asWritten) {
                    failures.add(call.where() + ": " + answer.status() + " " + answer.body() + "\n    "
                            + call.command());
                }
            }
        }
        assertThat(calls).as("curl calls of the rules service in docs/").isGreaterThanOrEqualTo(20);
        assertThat(failures).as("calls that did not answer as written").isEmpty();
    }

    /** What {@code ./tollgate up} loads: demo/rules.yaml as the set, demo/tenants, demo/clients.ndjson. */
    private void loadTheDemo() throws IOException, InterruptedException {
        Path demo = DocBlocks.root().resolve("demo");
        assertThat(send("PUT", "/api/v1/rules", "application/yaml", Files.readString(demo.resolve("rules.yaml")))
                .status()).isEqualTo(200);
        try (Stream<Path> tenants = Files.list(demo.resolve("tenants"))) {
            for (Path tenant : tenants.filter(f -> f.toString().endsWith(".json")).toList()) {
                String id = tenant.getFileName().toString().replace(".json", "");
                assertThat(send("PUT", "/api/v1/tenants/" + id, "application/json", Files.readString(tenant))
                        .status()).isIn(200, 201);
            }
        }
        assertThat(send("PUT", "/api/v1/clients", "application/x-ndjson",
                Files.readString(demo.resolve("clients.ndjson"))).status()).isEqualTo(200);
    }

    private Answer send(String method, String path, String contentType, String body)
            throws IOException, InterruptedException {
        HttpResponse<String> answer = http.send(HttpRequest.newBuilder(service(path)).header("Authorization", ADMIN)
                .header("Content-Type", contentType).method(method, HttpRequest.BodyPublishers.ofString(body))
                .build(), HttpResponse.BodyHandlers.ofString());
        return new Answer(answer.statusCode(), answer.body());
    }

    private Answer send(Call call) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(service(call.path())).timeout(Duration.ofSeconds(10));
        for (String header : call.headers()) {
            String name = header.substring(0, header.indexOf(':')).strip();
            String value = header.substring(header.indexOf(':') + 1).strip();
            request.header(name, name.equalsIgnoreCase("Authorization") && DOCS_TOKENS.contains(value) ? ADMIN : value);
        }
        request.method(call.method(), call.body() == null
                ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(call.body()));
        if (call.path().contains("/watch")) {
            return firstEvent(request.build());
        }
        HttpResponse<String> answer = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        return new Answer(answer.statusCode(), answer.body());
    }

    /** An event stream never ends: its answer is the status and the lines up to the first event's data. */
    private Answer firstEvent(HttpRequest request) throws IOException, InterruptedException {
        HttpResponse<Stream<String>> answer = http.send(request, HttpResponse.BodyHandlers.ofLines());
        StringBuilder seen = new StringBuilder();
        try (Stream<String> lines = answer.body()) {
            var it = lines.iterator();
            while (it.hasNext()) {
                String line = it.next();
                seen.append(line).append('\n');
                if (line.startsWith("data:")) {
                    break;
                }
            }
        }
        // a stream that ends before its first event did not answer as documented
        return new Answer(seen.indexOf("data:") >= 0 ? answer.statusCode() : 599, seen.toString());
    }

    private static URI service(String pathAndQuery) {
        return URI.create("http://127.0.0.1:" + RestAssured.port + pathAndQuery);
    }

    /**
     * One documented call.
     *
     * @param expected
     * the status of a trailing {@code # expect <status>}, 0 when none (then anything below 400 will do)
     */
    record Call(String where, String command, String method, String path, List<String> headers, String body,
            int expected) {
    }

    /** The calls of the rules service in one shell block: logical lines (continuations joined) that curl it. */
    static Stream<Call> calls(Block block) {
        List<Call> calls = new ArrayList<>();
        String[] lines = block.text().split("\n", -1);
        StringBuilder logical = new StringBuilder();
        int first = -1;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            if (first < 0) {
                first = i;
            }
            if (line.endsWith("\\")) {
                logical.append(line, 0, line.length() - 1).append(' ');
                continue;
            }
            logical.append(line);
            if (insideQuotes(logical)) {
                logical.append('\n'); // a quoted argument that goes on over the next line
                continue;
            }
            String command = logical.toString().strip();
            String where = "docs/" + block.page().getFileName() + ":" + (block.line() + 1 + first);
            if (command.startsWith("curl ") && DOCS_SERVICE.matcher(command).find()) {
                calls.add(parse(where, command));
            }
            logical.setLength(0);
            first = -1;
        }
        return calls.stream();
    }

    /** Whether a quote of {@code text} is still open at its end. */
    private static boolean insideQuotes(CharSequence text) {
        char open = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (open == 0 && c == '#' && (i == 0 || Character.isWhitespace(text.charAt(i - 1)))) {
                int eol = text.toString().indexOf('\n', i);
                i = eol < 0 ? text.length() : eol; // a comment: its quotes are words
            } else if (open == 0 && (c == '\'' || c == '"')) {
                open = c;
            } else if (c == open) {
                open = 0;
            } else if (c == '\\' && open != '\'') {
                i++;
            }
        }
        return open != 0;
    }

    /** A curl command line as a request: -X, -H, -d/--data/--data-binary (@file from the repository), -I. */
    static Call parse(String where, String command) {
        List<String> words = new ArrayList<>();
        String comment = shellWords(command, words);
        String method = null;
        String url = null;
        String body = null;
        List<String> headers = new ArrayList<>();
        for (int i = 1; i < words.size(); i++) {
            String w = words.get(i);
            switch (w) {
                case "-X", "--request" -> method = words.get(++i);
                case "-H", "--header" -> headers.add(words.get(++i));
                case "-d", "--data", "--data-raw", "--data-binary" -> body = data(words.get(++i), w);
                case "-o", "--output", "-w", "--write-out" -> i++;
                case "-I", "--head" -> method = "HEAD";
                default -> {
                    if (w.startsWith("http://") || w.startsWith("https://")) {
                        url = w;
                    } else if (w.startsWith("-") && !w.startsWith("--") && w.contains("I")) {
                        method = "HEAD";
                    } else if (!w.startsWith("-")) {
                        throw new IllegalArgumentException(where + ": a curl word this test does not read: " + w);
                    }
                }
            }
        }
        // the one variable the pages use is the admin token (DOCS_TOKENS); any other would go unread
        if (url == null || command.replace(TOKEN_VARIABLE, "").contains("$")) {
            throw new IllegalArgumentException(where + ": no literal URL, or a shell variable: " + command);
        }
        Matcher service = DOCS_SERVICE.matcher(url);
        service.find();
        Matcher expect = EXPECT.matcher(comment);
        return new Call(where, command, method != null ? method : body != null ? "POST" : "GET",
                url.substring(service.end()), headers, body, expect.find() ? Integer.parseInt(expect.group(1)) : 0);
    }

    private static String data(String value, String flag) {
        if (!value.startsWith("@")) {
            return value;
        }
        try {
            return Files.readString(DocBlocks.root().resolve(value.substring(1)));
        } catch (IOException e) {
            throw new IllegalArgumentException(flag + " " + value + ": no such file in the repository", e);
        }
    }

    /** Splits a command into words as a shell would (quotes, backslashes); returns the comment after a #. */
    private static String shellWords(String command, List<String> words) {
        StringBuilder word = null;
        for (int i = 0; i < command.length(); i++) {
            char c = command.charAt(i);
            if (c == '\'') {
                int end = command.indexOf('\'', i + 1);
                word = (word == null ? new StringBuilder() : word).append(command, i + 1, end);
                i = end;
            } else if (c == '"') {
                word = word == null ? new StringBuilder() : word;
                for (i++; command.charAt(i) != '"'; i++) {
                    if (command.charAt(i) == '\\' && "\"\\$`".indexOf(command.charAt(i + 1)) >= 0) {
                        i++;
                    }
                    word.append(command.charAt(i));
                }
            } else if (c == '\\' && i + 1 < command.length()) {
                word = (word == null ? new StringBuilder() : word).append(command.charAt(++i));
            } else if (Character.isWhitespace(c)) {
                if (word != null) {
                    words.add(word.toString());
                    word = null;
                }
            } else if (c == '#' && word == null) {
                return command.substring(i);
            } else if (c == ';' || c == '|' || c == '&') {
                throw new IllegalArgumentException("one curl call per line, without " + c + ": " + command);
            } else {
                word = (word == null ? new StringBuilder() : word).append(c);
            }
        }
        if (word != null) {
            words.add(word.toString());
        }
        return "";
    }

    /** What a call answered: its status and body (of an event stream, the text up to its first event). */
    private record Answer(int status, String body) {
    }
}
