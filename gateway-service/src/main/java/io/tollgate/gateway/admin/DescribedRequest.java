package io.tollgate.gateway.admin;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;

import io.tollgate.gateway.http.Problems;
import io.tollgate.gateway.key.KeyResolver;
import io.tollgate.rules.domain.KeySpec;
import io.vertx.core.MultiMap;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

/**
 * A request described in the query of an operation rather than received: {@code method}, {@code path},
 * the API key (in the header the gateway counts it by, e.g. {@code X-API-Key}, or {@code api_key=}), {@code ip} (the client
 * address, as the gateway would resolve it) and {@code header.<Name>=}
 * for any header. Read as a request would be: the client key of each rule comes from the same
 * {@link KeyResolver}.
 */
final class DescribedRequest {

    static final String HEADER_PREFIX = "header.";
    /** The longest value a parameter may have: an API key or a header of the size the public port takes. */
    static final int MAX_VALUE = 8192;
    private static final Pattern METHOD = Pattern.compile("[A-Z]{1,16}");

    final String method;
    final String path;
    private final String apiKey;
    private final String ip;
    private final Map<String, String> headers;

    private DescribedRequest(String method, String path, String apiKey, String ip, Map<String, String> headers) {
        this.method = method;
        this.path = path;
        this.apiKey = apiKey;
        this.ip = ip;
        this.headers = headers;
    }

    /**
     * The request the parameters describe; {@code headerApiKey}: the API key the operation's own request carries in
     * the header the gateway counts API keys by, which is taken before {@code api_key=} so that keys stay out of
     * URLs and access logs; {@code needPath}: the path is required (it picks the rules). Each bad parameter is
     * added to {@code errors} (null is returned then).
     */
    static DescribedRequest read(MultiMap params, String headerApiKey, boolean needPath, JsonArray errors) {
        String method = params.get("method") == null ? "GET" : params.get("method").toUpperCase(Locale.ROOT);
        if (!METHOD.matcher(method).matches()) {
            errors.add(error("method", params.get("method"), "must be an HTTP method, such as GET or POST"));
        }
        String path = params.get("path");
        if (needPath && (path == null || !path.startsWith("/"))) {
            errors.add(error("path", path, "required: the request's path, starting with /"));
        }
        Map<String, String> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        for (Map.Entry<String, String> param : params) {
            String name = param.getKey();
            if (name.startsWith(HEADER_PREFIX)) {
                String header = name.substring(HEADER_PREFIX.length());
                if (header.isEmpty()) {
                    errors.add(error(name, null, "names no header: header.<Name>=<value>"));
                } else {
                    headers.put(header, param.getValue());
                }
            }
            if (param.getValue().length() > MAX_VALUE) {
                errors.add(error(name, null, "must be at most " + MAX_VALUE + " characters"));
            }
        }
        if (headerApiKey != null && headerApiKey.length() > MAX_VALUE) {
            errors.add(error("api key header", null, "must be at most " + MAX_VALUE + " characters"));
        }
        if (!errors.isEmpty()) {
            return null;
        }
        String apiKey = headerApiKey != null ? headerApiKey : params.get("api_key");
        return new DescribedRequest(method, path, apiKey, params.get("ip"), headers);
    }

    /** The client key {@code spec} reads from this request, or empty when the request lacks it. */
    Optional<String> clientKey(KeyResolver keys, KeySpec spec) {
        return keys.resolve(spec, name -> name.equalsIgnoreCase(keys.apiKeyHeader()) && apiKey != null
                ? apiKey
                : headers.get(name), ip);
    }

    /** Which parameter gives the key of {@code spec}, for an answer that says it is missing. */
    static String parameterFor(KeySpec spec) {
        return switch (spec.kind()) {
            case API_KEY, TENANT -> "api_key";
            case HEADER -> HEADER_PREFIX + spec.header();
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
