package io.tollgate.gateway.warmup;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.List;

import jakarta.inject.Singleton;

import io.tollgate.counter.Algorithm;
import io.tollgate.gateway.limiter.decision.DecisionMetrics;
import io.tollgate.rules.domain.FailureMode;
import io.tollgate.rules.domain.KeySpec;
import io.tollgate.rules.domain.Leasing;
import io.tollgate.rules.domain.MissingKey;
import io.tollgate.rules.domain.Rule;
import io.tollgate.rules.domain.RuleMatch;
import io.tollgate.rules.domain.Unit;
import io.vertx.core.http.HttpServerRequest;

/**
 * Tells the warm-up's own requests from everyone else's: they carry {@value #HEADER} with a random secret made
 * by this process, which never leaves it except over loopback to itself, and the gate honours it only while the
 * warm-up sends. Claimed requests are checked under the warm-up's rules (throwaway buckets) and proxied to the
 * warm-up's loopback target, never to a backend; every other request, and every request once the gate is
 * closed, is an ordinary one.
 * <p>
 * A singleton, not an application-scoped bean, so that the HTTP edge holds it directly (no client proxy): a
 * request costs one volatile read of {@link #claims} while the gate is closed.
 */
@Singleton
public class WarmupGate {

    /** The header of the warm-up's own requests. */
    public static final String HEADER = "Tollgate-Warmup";
    /** The rule id of the warm-up's checks, in {@code tollgate_decisions_total} too. */
    static final String RULE_ID = DecisionMetrics.WARMUP_RULE;
    static final String CHECK_PATH = "/tollgate-warmup/check";
    static final String REJECT_PATH = "/tollgate-warmup/reject";
    static final String PASS_PATH = "/tollgate-warmup/pass";
    /** The window of the rule that answers 429: its buckets live this long at most. */
    static final Duration REJECT_WINDOW = Duration.ofMillis(100);

    /** The limit (and burst) of the rule that never rejects. */
    static final long CHECK_LIMIT = 1_000_000_000L;

    /** Never rejects; a bucket refills in a microsecond, so the store lets it expire at once. */
    private static final List<Rule> CHECK = List.of(rule(Algorithm.TOKEN_BUCKET, CHECK_LIMIT, Duration.ofSeconds(1)));
    /** One request per window: the rest are rejected, by the store and then from memory. */
    private static final List<Rule> REJECT = List.of(rule(Algorithm.FIXED_WINDOW, 1, REJECT_WINDOW));

    private final byte[] secret;
    private volatile boolean open;
    private volatile URI target;

    WarmupGate() {
        byte[] random = new byte[32];
        new SecureRandom().nextBytes(random);
        this.secret = Base64.getUrlEncoder().withoutPadding().encodeToString(random).getBytes(StandardCharsets.US_ASCII);
    }

    private static Rule rule(Algorithm algorithm, long limit, Duration period) {
        // the store cannot answer: allow, so the proxy path is warmed all the same; no leases, so every warm-up
        // request warms the store path, the one that is slow while cold
        return new Rule(RULE_ID, "the start-up warm-up's own checks", new RuleMatch(List.of(), "/**"), KeySpec.API_KEY,
                algorithm, limit, period, limit, FailureMode.OPEN, false, true, MissingKey.REJECT, null, 1,
                Unit.REQUESTS, null, null, null, Leasing.OFF);
    }

    /** Whether {@code request} is one of the warm-up's own: the gate is open and the request carries the secret. */
    public boolean claims(HttpServerRequest request) {
        return open && isSecret(request.getHeader(HEADER));
    }

    /** Whether {@code presented} (a {@value #HEADER} value, or null) is this process's secret. */
    boolean isSecret(String presented) {
        return presented != null && MessageDigest.isEqual(secret, presented.getBytes(StandardCharsets.US_ASCII));
    }

    /** The rules a claimed request is checked under, by its path: none, a limit never reached, or one per window. */
    public List<Rule> rules(String path) {
        return switch (path) {
            case CHECK_PATH -> CHECK;
            case REJECT_PATH -> REJECT;
            default -> List.of();
        };
    }

    /** Where a claimed request is proxied: the warm-up's loopback target. */
    public URI target() {
        return target;
    }

    /** The value of {@value #HEADER} on the warm-up's own requests. */
    String secret() {
        return new String(secret, StandardCharsets.US_ASCII);
    }

    void open(URI loopbackTarget) {
        this.target = loopbackTarget;
        this.open = true;
    }

    void close() {
        this.open = false;
    }
}
