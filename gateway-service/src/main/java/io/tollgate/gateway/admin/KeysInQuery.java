package io.tollgate.gateway.admin;

import io.tollgate.gateway.http.Problems;
import io.tollgate.gateway.key.KeyResolver;
import io.vertx.core.MultiMap;
import io.vertx.core.json.JsonArray;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.HttpException;

/**
 * A client key in an operation's query ({@code api_key=}, {@code header.<Name>=}) refused, 400 {@code key-in-url},
 * naming each such parameter and the header its key goes in, never repeating the key: URLs end up in access logs.
 * No operation takes a key in its query, so {@link AdminGuard} checks every one, once its caller is let in.
 */
final class KeysInQuery {

    static final String API_KEY_PARAM = "api_key";
    static final String HEADER_PARAM = "header.";

    private KeysInQuery() {
    }

    /** Whether {@code ctx}'s query holds a client key, in which case the refusal is sent. */
    static boolean refused(RoutingContext ctx, KeyResolver keys) {
        MultiMap params;
        try {
            params = ctx.queryParams();
        } catch (HttpException undecodable) {
            // a query no one can read may hold a key as well as anything else
            Problems.send(ctx.response(), Problems.problem("bad-query", "Query string not decodable", 400,
                    "the query string has a bad percent-escape"));
            return true;
        }
        JsonArray errors = new JsonArray();
        for (String name : params.names()) {
            if (name.equals(API_KEY_PARAM)) {
                errors.add(DescribedRequest.error(name, null, "an API key does not go in a URL: send it in the "
                        + keys.apiKeyHeader() + " header, as the client does"));
            } else if (name.startsWith(HEADER_PARAM)) {
                String header = name.substring(HEADER_PARAM.length());
                errors.add(DescribedRequest.error(name, null, "a client key does not go in a URL: send it in the "
                        + (header.isEmpty() ? "header the rule counts by" : header + " header") + ", as the client does"));
            }
        }
        if (errors.isEmpty()) {
            return false;
        }
        Problems.send(ctx.response(), Problems.problem("key-in-url", "Client key in the URL", 400, "a client key does"
                + " not go in a URL, where access logs keep it: send it in the header it is counted by")
                .put("errors", errors));
        return true;
    }
}
