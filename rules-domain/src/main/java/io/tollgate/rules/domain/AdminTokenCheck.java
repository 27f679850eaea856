package io.tollgate.rules.domain;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import io.tollgate.counter.Algorithm;
import io.tollgate.counter.Decision;
import io.tollgate.counter.InMemoryCounters;
import io.tollgate.counter.Policy;

/**
 * The admin tokens of a service, as both services check them: a presented token is compared as a SHA-256 digest
 * with {@link MessageDigest#isEqual} against every configured token, so timing tells nothing, and tokens are
 * never kept or logged in the clear.
 * <p>
 * Wrong tokens are throttled per client address with the limiter's own token bucket ({@link InMemoryCounters}):
 * each wrong token spends one token of its address's bucket, {@code limit} of them per {@code period}, and once an
 * address has spent its bucket its wrong tokens are refused with a retry time ({@link Verdict#throttled()}) and
 * logged no more. A right token is always accepted, from any address, whatever that address presented before: the
 * tokens are random 256-bit secrets that no rate of guessing finds, so the throttle guards the logs and the CPU
 * (a wrong token costs one digest and a counter), never the secret, and a stranger's guesses cannot lock the
 * operators and the gateways that share an address out. An IPv6 address counts by its /64, the block one host is
 * usually given.
 * <p>
 * The buckets live in this process (each instance of a service counts its own) and a bucket is forgotten once
 * full again, so memory follows the addresses that guessed wrong within one period.
 */
public final class AdminTokenCheck {

    /** A configured token: its secret and what it may do. */
    public record Token(String secret, Scope scope) {
    }

    /**
     * The actor whose token a presentation carried and that token's scope; for a wrong token, whether its address
     * had spent its allowance ({@code throttled}, with when one comes back), or spent its last with this one
     * ({@code justThrottled}).
     */
    public record Verdict(String actor, Scope scope, boolean throttled, long retryAfterSeconds, boolean justThrottled) {

        /** Whether the token was one of the configured ones. */
        public boolean accepted() {
            return actor != null;
        }
    }

    private final Map<String, byte[]> digestByActor = new LinkedHashMap<>();
    private final Map<String, Scope> scopeByActor = new LinkedHashMap<>();
    private final Policy guesses;
    private final InMemoryCounters buckets = new InMemoryCounters();
    private final LongSupplier clockMicros;

    /**
     * @param tokenByActor the configured tokens by actor name; blank tokens are left out
     * @param limit wrong tokens an address may present per {@code period} (and at once)
     * @param clockMicros Unix time in microseconds
     */
    public AdminTokenCheck(Map<String, Token> tokenByActor, long limit, Duration period, LongSupplier clockMicros) {
        if (limit < 1) {
            throw new IllegalArgumentException("tollgate.admin.wrong-tokens.limit must be >= 1, was " + limit);
        }
        if (period.toMillis() < 1) {
            throw new IllegalArgumentException("tollgate.admin.wrong-tokens.period must be at least 1ms, was " + period);
        }
        tokenByActor.forEach((actor, token) -> {
            if (token != null && token.secret() != null && !token.secret().isBlank()) {
                digestByActor.put(actor, digest(token.secret()));
                scopeByActor.put(actor, token.scope());
            }
        });
        this.guesses = new Policy(Algorithm.TOKEN_BUCKET, limit, period.toMillis(), limit);
        this.clockMicros = clockMicros;
    }

    /**
     * The tokens as both services configure them: {@code tollgate.admin.token} (actor {@value #ADMIN}) and the
     * named {@code tollgate.admin.tokens}, throttled by {@code tollgate.admin.wrong-tokens.*} on the wall clock.
     */
    public static AdminTokenCheck configured(Optional<String> adminToken, Map<String, Token> named, long limit,
            Duration period) {
        Map<String, Token> tokens = new LinkedHashMap<>();
        adminToken.ifPresent(t -> tokens.put(ADMIN, new Token(t, Scope.ADMIN)));
        tokens.putAll(named);
        return new AdminTokenCheck(tokens, limit, period, () -> TimeUnit.MILLISECONDS.toMicros(System.currentTimeMillis()));
    }

    /** The actor of {@code tollgate.admin.token}. */
    public static final String ADMIN = "admin";

    /** The actors that have a token, with its scope. */
    public Map<String, Scope> actors() {
        return Collections.unmodifiableMap(scopeByActor);
    }

    /**
     * Checks a token presented from {@code address} (an IP literal; null when unknown, which counts as one
     * address of its own): the right token is accepted whatever the address presented before; a wrong one spends
     * one of the address's allowance, and is throttled once the allowance is spent.
     */
    public Verdict check(String token, String address) {
        String actor = actorOf(token);
        if (actor != null) {
            return new Verdict(actor, scopeByActor.get(actor), false, 0, false);
        }
        List<String> key = List.of("{" + addressKey(address) + "}");
        Decision spent = buckets.check(key, List.of(guesses), clockMicros.getAsLong()).get(0);
        if (!spent.allowed()) {
            return new Verdict(null, null, true, Math.max(1, (spent.retryAfterMs() + 999) / 1000), false);
        }
        return new Verdict(null, null, false, 0, spent.remaining() == 0);
    }

    private String actorOf(String token) {
        byte[] presented = digest(token == null ? "" : token);
        String actor = null;
        for (Map.Entry<String, byte[]> e : digestByActor.entrySet()) {
            // no early exit: every token is compared, whichever matches
            if (MessageDigest.isEqual(presented, e.getValue()) && actor == null) {
                actor = e.getKey();
            }
        }
        return actor;
    }

    /** An IPv4 address whole, an IPv6 address by its first 64 bits; anything else as it is. */
    static String addressKey(String address) {
        if (address == null || address.isBlank()) {
            return "unknown";
        }
        if (address.indexOf(':') < 0 || !address.chars().allMatch(c -> Character.digit(c, 16) >= 0 || c == ':' || c == '.')) {
            return address;
        }
        try {
            // hex digits, colons and dots: parsed as an IPv6 literal, never looked up; IPv4-mapped comes back as IPv4
            InetAddress parsed = InetAddress.getByName(address);
            return parsed instanceof Inet6Address
                    ? HexFormat.of().formatHex(parsed.getAddress(), 0, 8) + "::/64"
                    : parsed.getHostAddress();
        } catch (UnknownHostException e) {
            return address;
        }
    }

    private static byte[] digest(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
