package io.tollgate.gateway.admin;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

import io.tollgate.gateway.http.Problems;
import io.tollgate.gateway.key.KeyResolver;
import io.tollgate.rules.domain.KeySpec;
import io.vertx.core.MultiMap;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

/**
 * A request described by an operation rather than received: {@code method}, {@code path} and {@code ip} (the
 * client address, as the gateway would resolve it) in the query; the client keys that are secrets (the API key, a
 * {@code header:} key's value) in the operation's own headers, the very headers the gateway counts them by (e.g.
 * {@code X-API-Key}), so that keys stay out of URLs and access logs (a key in the query is refused before any
 * operation runs: {@link KeysInQuery}). Read as a request would be: the client key of
 * each rule comes from the same {@link KeyResolver}.
 */
final class DescribedRequest {

    /** The longest value a parameter or header may have: the size of a header the public port takes. */
    static final int MAX_VALUE = 8192;
    private static final Pattern METHOD = Pattern.compile("[A-Z]{1,16}");

    final String method;
    final String path;
    private final MultiMap headers;
    private final String ip;

    private DescribedRequest(String method, String path, MultiMap headers, String ip) {
        this.method = method;
        this.path = path;
        this.headers = headers;
        this.ip = ip;
    }

    /**
     * The request that {@code params} and {@code headers} (the operation's own) describe; {@code needPath}: the path
     * is required (it picks the rules). Each bad parameter is added to {@code errors} (null is returned then).
     */
    static DescribedRequest read(MultiMap params, MultiMap headers, KeyResolver keys, boolean needPath,
            JsonArray errors) {
        String method = params.get("method") == null ? "GET" : params.get("method").toUpperCase(Locale.ROOT);
        if (!METHOD.matcher(method).matches()) {
            errors.add(error("method", params.get("method"), "must be an HTTP method, such as GET or POST"));
        }
        String path = params.get("path");
        if (needPath && (path == null || !path.startsWith("/"))) {
            errors.add(error("path", path, "required: the request's path, starting with /"));
        }
        for (Map.Entry<String, String> param : params) {
            if (param.getValue().length() > MAX_VALUE) {
                errors.add(error(param.getKey(), null, "must be at most " + MAX_VALUE + " characters"));
            }
        }
        if (!errors.isEmpty()) {
            return null;
        }
        return new DescribedRequest(method, path, headers, params.get("ip"));
    }

    /** The client key {@code spec} reads from this request, or empty when the request lacks it. */
    Optional<String> clientKey(KeyResolver keys, KeySpec spec) {
        return keys.resolve(spec, headers::get, ip);
    }

    /** Where the key of {@code spec} goes, for an answer that says it is missing: a header's name, or {@code ip}. */
    static String parameterFor(KeyResolver keys, KeySpec spec) {
        return switch (spec.kind()) {
            case API_KEY, TENANT, HEADER -> keys.missing(spec);
            case IP -> "ip";
            case GLOBAL -> "none";
        };
    }

    /** Answers 400 with {@code errors}, each naming its parameter, in the problem's {@code errors}. */
    static void refuse(RoutingContext ctx, JsonArray errors) {
        Problems.send(ctx.response(), Problems.problem("validation-failed", "Bad request", 400,
                errors.size() + " bad parameter(s)").put("errors", errors));
    }

    static JsonObject error(String field, String value, String reason) {
        return new JsonObject().put("field", field).put("value", value).put("reason", reason);
    }
}
