package io.tollgate.e2e.support;

/** Rule bodies for the tests, in the rules service's JSON (docs/rules.md). */
public final class Rules {

    private Rules() {
    }

    /** A token bucket per API key on every path: {@code limit} per {@code period}, burst = limit. */
    public static String perApiKey(String id, long limit, String period, String failureMode) {
        return perApiKey(id, "/**", limit, period, failureMode);
    }

    /** A token bucket per API key on {@code path}: {@code limit} per {@code period}, burst = limit. */
    public static String perApiKey(String id, String path, long limit, String period, String failureMode) {
        return perApiKey(id, path, limit, period, limit, failureMode);
    }

    /** A token bucket per API key on {@code path}: {@code limit} per {@code period}, holding up to {@code burst}. */
    public static String perApiKey(String id, String path, long limit, String period, long burst, String failureMode) {
        return """
                {"id": "%s", "match": {"path": "%s"}, "key": "api_key", "algorithm": "token_bucket",
                 "limit": %d, "period": "%s", "burst": %d, "failure_mode": "%s"}
                """.formatted(id, path, limit, period, burst, failureMode);
    }
}
