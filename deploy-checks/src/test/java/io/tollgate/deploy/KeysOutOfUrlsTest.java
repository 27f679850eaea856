package io.tollgate.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * What the project shows and runs never puts a client's key in a URL, where access logs keep it: no doc, README,
 * launcher, script or console asset names a key as {@code api_key=} or {@code header.<Name>=} in a query, or as a
 * path segment of {@code /api/v1/clients/}, except a call written to show the refusal ({@code # expect 400}).
 * The services refuse those forms (400 {@code key-in-url}); this keeps every example from teaching them.
 */
class KeysOutOfUrlsTest {

    /** {@code ?api_key=} or {@code &header.X-Foo=}: a client key in a query string. */
    private static final Pattern KEY_IN_QUERY = Pattern.compile("[?&](api_key|header\\.[A-Za-z0-9-]+)=");
    /** {@code /api/v1/clients/<something>} other than {@code key}, {@code digest/} or a placeholder. */
    private static final Pattern KEY_IN_PATH = Pattern.compile(
            "/api/v1/clients/(?!key\\b|digest/|\\{|<|\\?|\"|'|`|\\s|$)[^\\s\"'`)]+");
    private static final Pattern SHOWN_REFUSED = Pattern.compile("#\\s*expect\\s+400");

    @Test
    void noExampleOrCallerPutsAClientKeyInAUrl() throws IOException {
        List<String> found = new ArrayList<>();
        List<Path> files = files();
        assertThat(files).as("files read").hasSizeGreaterThan(20);
        for (Path file : files) {
            List<String> lines = Files.readAllLines(file);
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                if ((KEY_IN_QUERY.matcher(line).find() || KEY_IN_PATH.matcher(line).find())
                        && !SHOWN_REFUSED.matcher(line).find()) {
                    found.add(Repo.ROOT.relativize(file) + ":" + (i + 1) + ": " + line.strip());
                }
            }
        }
        assertThat(found).as("client keys in URLs").isEmpty();
    }

    @Test
    void thePatternsFindTheFormsTheServicesRefuse() {
        assertThat(KEY_IN_QUERY.matcher("'http://127.0.0.1:9000/tollgate/explain?path=/x&api_key=ak_1'").find()).isTrue();
        assertThat(KEY_IN_QUERY.matcher("/tollgate/explain?header.X-Customer=c").find()).isTrue();
        assertThat(KEY_IN_PATH.matcher("curl http://127.0.0.1:8081/api/v1/clients/ak_free").find()).isTrue();
        assertThat(KEY_IN_PATH.matcher("PUT /api/v1/clients/ak_1/history").find()).isTrue();
        assertThat(KEY_IN_PATH.matcher("curl http://127.0.0.1:8081/api/v1/clients/key -H 'X-API-Key: a'").find())
                .isFalse();
        assertThat(KEY_IN_PATH.matcher("GET /api/v1/clients/digest/{sha256}").find()).isFalse();
        assertThat(KEY_IN_PATH.matcher("a key in the path (`/api/v1/clients/<key>`) is refused").find()).isFalse();
        assertThat(KEY_IN_QUERY.matcher("a key in the query (`api_key=`) is refused").find()).isFalse();
    }

    /** The docs and READMEs, the launcher, the benchmark scripts and the console's assets and templates. */
    private static List<Path> files() throws IOException {
        List<Path> files = new ArrayList<>();
        files.add(Repo.path("tollgate"));
        for (String folder : List.of("docs", "bench", "rules-service/src/main/resources", "docker", "k8s", "demo")) {
            try (Stream<Path> all = Files.walk(Repo.path(folder))) {
                all.filter(Files::isRegularFile)
                        .filter(f -> !f.toString().contains("/results/") && !f.toString().contains("/target/"))
                        .filter(f -> f.toString().matches(".*\\.(md|sh|py|js|html|yaml|yml|properties)$"))
                        .forEach(files::add);
            }
        }
        try (Stream<Path> readmes = Files.list(Repo.ROOT)) {
            readmes.filter(Files::isDirectory).map(d -> d.resolve("README.md")).filter(Files::isRegularFile)
                    .forEach(files::add);
        }
        files.add(Repo.path("README.md"));
        return files;
    }
}
