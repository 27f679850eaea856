package io.tollgate.gateway.support;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@link GatewayResource} whose gateway also listens for TLS, set up as docs/protocols.md says: its {@code keytool}
 * commands run as written (in a fresh folder, choosing a random {@code TLS_PASSWORD}) and its properties are the
 * gateway's, the keystore's path made absolute, the HTTPS port a free one ({@code test.tls.port}) and the reload
 * period a second. The certificate the clients trust is {@code test.tls.certificate}; the key store and its password,
 * for a test that renews it, {@code test.tls.keystore} and {@code test.tls.password}.
 */
public class TlsResource extends GatewayResource {

    static final Path PAGE = Path.of("..", "docs", "protocols.md");

    @Override
    public Map<String, String> start() {
        Map<String, String> config = new java.util.HashMap<>(super.start());
        try {
            String page = Files.readString(PAGE);
            Path dir = Files.createTempDirectory("tollgate-tls");
            // the page's commands as written; then the password they chose, for the properties below
            String script = block(page, "sh", "keytool -genkeypair") + "\nprintf %s \"$TLS_PASSWORD\" > password\n";
            Process run = new ProcessBuilder("bash", "-euc", script)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .start();
            String output = new String(run.getInputStream().readAllBytes());
            if (!run.waitFor(60, TimeUnit.SECONDS) || run.exitValue() != 0) {
                throw new IllegalStateException("the documented keytool commands failed: " + output);
            }
            String password = Files.readString(dir.resolve("password"));
            applyProperties(block(page, "properties", "key-store.p12.path"), dir, password, config);
            String port = Integer.toString(closedPort());
            config.put("quarkus.http.ssl-port", port);
            config.put("quarkus.http.test-ssl-port", port);
            config.put("test.tls.port", port);
            config.put("test.tls.certificate", dir.resolve("gateway.crt").toAbsolutePath().toString());
            config.put("test.tls.keystore", dir.resolve("gateway.p12").toAbsolutePath().toString());
            config.put("test.tls.password", password);
            // the page's reload period is an hour; the test's is a second, so a renewed key store shows soon
            config.put("quarkus.tls.public.reload-period", "1s");
            // the test backend over TLS with the same certificate, an h2:// upstream the gateway trusts through
            // the configuration docs/protocols.md shows for it
            int tlsBackend = backend().listenTls(dir.resolve("gateway.p12").toAbsolutePath().toString(), password);
            config.put("tollgate.gateway.routes.tls.prefix", "/tls-upstream");
            config.put("tollgate.gateway.routes.tls.url", "h2://localhost:" + tlsBackend);
            // the upstream's CA: here the test's one self-signed certificate, under the page's name
            applyProperties(block(page, "properties", "upstream-tls-configuration-name"), dir, password, config);
            return config;
        } catch (Exception e) {
            throw new IllegalStateException("TLS set-up as docs/protocols.md says failed", e);
        }
    }

    /**
     * The {@code key=value} lines of a properties block into {@code config}: a key store ({@code .p12}) or a CA
     * file ({@code .crt}, a copy of the test's certificate under the page's name) in {@code dir}, and
     * {@code ${TLS_PASSWORD}} the password the page's commands chose.
     */
    private static void applyProperties(String block, Path dir, String password, Map<String, String> config)
            throws java.io.IOException {
        for (String line : block.lines().toList()) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String key = line.substring(0, line.indexOf('=')).trim();
            String value = line.substring(line.indexOf('=') + 1).trim();
            if (value.endsWith(".p12")) {
                value = dir.resolve(value).toAbsolutePath().toString();
            } else if (value.endsWith(".crt")) {
                Path ca = dir.resolve(value);
                Files.copy(dir.resolve("gateway.crt"), ca, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                value = ca.toAbsolutePath().toString();
            }
            config.put(key, value.replace("${TLS_PASSWORD}", password));
        }
    }

    /** The first fenced block of {@code language} on {@code page} that contains {@code marker}. */
    static String block(String page, String language, String marker) {
        Matcher m = Pattern.compile("```" + language + "\\n(.*?)```", Pattern.DOTALL).matcher(page);
        while (m.find()) {
            if (m.group(1).contains(marker)) {
                return m.group(1);
            }
        }
        throw new IllegalStateException(PAGE + " has no " + language + " block with " + marker);
    }
}
