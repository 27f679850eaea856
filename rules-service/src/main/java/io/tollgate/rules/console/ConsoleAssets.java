package io.tollgate.rules.console;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import io.tollgate.rules.auth.Endpoints;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * The console's stylesheet and scripts ({@code console-assets/} on the class path), held in memory, plain and
 * gzipped, and served under {@code /console/assets/<digest>/<name>}, where the digest is of all of them: a
 * new build gets new URLs, so the browser may keep what it has for a year.
 */
@ApplicationScoped
class ConsoleAssets {

    static final String PREFIX = "/console/assets/";
    /** Every asset; a page names them through {@link #base()}, a module imports its siblings relatively. */
    static final List<String> NAMES = List.of("console.css", "api.js", "dom.js", "rules.js", "editor.js",
            "history.js", "diff.js", "import.js", "clients.js", "sha256.js", "tenant.js", "live.js", "plot.js",
            "explain.js");
    private static final String FOREVER = "public, max-age=31536000, immutable";

    private final Map<String, Asset> byName = new LinkedHashMap<>();
    private final String digest;

    private final Endpoints endpoints;

    ConsoleAssets(Endpoints endpoints) {
        this.endpoints = endpoints;
        MessageDigest all = sha256();
        for (String name : NAMES) {
            byte[] bytes = read(name);
            all.update(bytes);
            byName.put(name, new Asset(type(name), Buffer.buffer(bytes), Buffer.buffer(gzip(bytes))));
        }
        this.digest = HexFormat.of().formatHex(all.digest()).substring(0, 16);
    }

    void install(@Observes Router router) {
        endpoints.open(router.get(PREFIX + "*").order(-189), this::serve);
    }

    /** Where the pages load the assets from: {@code /console/assets/<digest>}. */
    String base() {
        return PREFIX + digest;
    }

    private void serve(RoutingContext ctx) {
        String rest = ctx.normalizedPath().substring(PREFIX.length());
        int slash = rest.indexOf('/');
        Asset asset = slash < 0 ? null : byName.get(rest.substring(slash + 1));
        if (asset == null) {
            ctx.response().setStatusCode(404).end();
            return;
        }
        // an old page asking for its old digest gets today's asset, but not to keep
        boolean current = rest.substring(0, slash).equals(digest);
        String accepts = ctx.request().getHeader(HttpHeaders.ACCEPT_ENCODING);
        boolean gzip = accepts != null && accepts.contains("gzip");
        ctx.response()
                .putHeader(HttpHeaders.CONTENT_TYPE, asset.type())
                .putHeader(HttpHeaders.CACHE_CONTROL, current ? FOREVER : "no-cache")
                .putHeader(HttpHeaders.VARY, HttpHeaders.ACCEPT_ENCODING)
                .putHeader("X-Content-Type-Options", "nosniff");
        if (gzip) {
            ctx.response().putHeader(HttpHeaders.CONTENT_ENCODING, "gzip").end(asset.gzipped());
        } else {
            ctx.response().end(asset.plain());
        }
    }

    private record Asset(String type, Buffer plain, Buffer gzipped) {
    }

    private static String type(String name) {
        return name.endsWith(".css") ? "text/css; charset=utf-8" : "text/javascript; charset=utf-8";
    }

    private static byte[] read(String name) {
        try (InputStream in = ConsoleAssets.class.getClassLoader().getResourceAsStream("console-assets/" + name)) {
            if (in == null) {
                throw new IllegalStateException("console asset missing from the build: " + name);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] gzip(byte[] bytes) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream zip = new GZIPOutputStream(out)) {
            zip.write(bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
