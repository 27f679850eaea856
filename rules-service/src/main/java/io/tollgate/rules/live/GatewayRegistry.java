package io.tollgate.rules.live;

import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import org.jboss.logging.Logger;

import io.micrometer.core.instrument.MeterRegistry;
import io.smallrye.mutiny.Uni;
import io.tollgate.rules.config.RulesConfig;
import io.vertx.core.buffer.Buffer;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * The gateways that polled any instance with a valid token, in PostgreSQL ({@code gateways}), one row each: when
 * each was last seen, the rules version it holds, where its management interface is. How many were seen within
 * {@code tollgate.gateways.live-window} is the fleet's size, the same on every instance; a gateway silent for
 * {@code forget-after} is forgotten; at most {@code max-tracked} are kept, a new one dropping the longest silent.
 * <p>
 * Off the poll's path: a poll is written after it is answered, at most once per {@link #WRITE_EVERY_MS} per
 * gateway by this instance unless what it reports changed, and the live count is read at most once a second.
 */
@ApplicationScoped
public class GatewayRegistry {

    private static final Logger LOG = Logger.getLogger(GatewayRegistry.class);

    public static final int MAX_ID_LENGTH = 200;
    /** The rules version of a gateway not yet answered a rule set. */
    public static final long UNKNOWN_VERSION = -1;
    /** A gateway's row is rewritten at most this often by one instance when nothing it reports changed. */
    static final long WRITE_EVERY_MS = 5_000;
    /** The live count an answer carries is at most this old. */
    static final long COUNT_EVERY_MS = 1_000;

    /**
     * One gateway as last heard.
     *
     * @param rulesVersion
     * the version of the rule set it was last answered (200 or 304), {@link #UNKNOWN_VERSION} before
     * @param adminUrl
     * the base URL of its management interface, or null: taken only as {@link ReportedAddress} allows
     * @param authorization
     * the {@code Authorization} this instance calls it with (the configured token it polled with), or null;
     * never shown
     */
    public record Gateway(String id, long lastSeenMs, long rulesVersion, String adminUrl, String authorization) {
    }

    /**
     * One authenticated poll, as the edge saw it.
     *
     * @param reportedUrl
     * its {@code Tollgate-Gateway-Admin}, unchecked, or null
     * @param authorization
     * its {@code Authorization}, which was accepted
     * @param version
     * the rules version it was answered, {@link #UNKNOWN_VERSION} when it was not a poll of the rules
     */
    public record Poll(String id, String source, String reportedUrl, String authorization, long version) {
    }

    /** What this instance last wrote of a gateway, to skip rewriting the same within {@link #WRITE_EVERY_MS}. */
    private record Written(long atMs, long version, String adminUrl, String source, byte[] tokenDigest) {

        boolean same(Written other) {
            return version == other.version && Objects.equals(adminUrl, other.adminUrl)
                    && Objects.equals(source, other.source) && Arrays.equals(tokenDigest, other.tokenDigest);
        }
    }

    private final Pool pool;
    private final Clock clock;
    private final ReportedAddress addresses;
    private final GatewayTokens tokens;
    private final long windowMs;
    private final long forgetAfterMs;
    private final int maxTracked;
    private final Map<String, Written> written = new ConcurrentHashMap<>();
    private final AtomicBoolean counting = new AtomicBoolean();
    private volatile int live;
    /** When the count was last read; far enough back that the first call reads it. */
    private volatile long countedAtMs = -COUNT_EVERY_MS;

    @Inject
    GatewayRegistry(Pool pool, Clock clock, RulesConfig config, ReportedAddress addresses, GatewayTokens tokens,
            MeterRegistry meters) {
        this.pool = pool;
        this.clock = clock;
        this.addresses = addresses;
        this.tokens = tokens;
        this.windowMs = config.gateways().liveWindow().toMillis();
        this.forgetAfterMs = Math.max(windowMs, config.gateways().forgetAfter().toMillis());
        this.maxTracked = config.gateways().maxTracked();
        meters.gauge("tollgate.rules.gateways.live", this, GatewayRegistry::live);
    }

    /**
     * Records an authenticated poll; a blank or over-long id is ignored. The write happens in the background:
     * it completes the returned Uni, which a caller on the poll's path does not wait for.
     */
    public Uni<Void> heard(Poll poll) {
        if (!acceptable(poll.id())) {
            return Uni.createFrom().voidItem();
        }
        long now = clock.millis();
        String adminUrl = addresses.accepted(poll.reportedUrl(), poll.source());
        Written next = new Written(now, poll.version(), adminUrl, poll.source(),
                adminUrl == null ? null : GatewayTokens.digestOf(poll.authorization()));
        Written before = written.get(poll.id());
        if (before != null && before.same(next) && now - before.atMs() < WRITE_EVERY_MS) {
            return Uni.createFrom().voidItem();
        }
        remember(poll.id(), next);
        return pool.preparedQuery("""
                INSERT INTO gateways (id, last_seen, rules_version, admin_url, token_digest, source)
                VALUES ($1, $2, $3, $4, $5, $6)
                ON CONFLICT (id) DO UPDATE SET
                    last_seen = GREATEST(gateways.last_seen, EXCLUDED.last_seen),
                    rules_version = CASE WHEN EXCLUDED.rules_version >= 0
                        THEN EXCLUDED.rules_version ELSE gateways.rules_version END,
                    admin_url = COALESCE(EXCLUDED.admin_url, gateways.admin_url),
                    token_digest = CASE WHEN EXCLUDED.admin_url IS NULL
                        THEN gateways.token_digest ELSE EXCLUDED.token_digest END,
                    source = EXCLUDED.source
                RETURNING (xmax = 0) AS inserted""")
                .execute(Tuple.tuple()
                        .addString(poll.id())
                        .addValue(at(now))
                        .addLong(poll.version())
                        .addString(adminUrl)
                        .addValue(next.tokenDigest() == null ? null : Buffer.buffer(next.tokenDigest()))
                        .addString(poll.source()))
                .chain(rows -> rows.iterator().next().getBoolean("inserted") ? trim(now) : Uni.createFrom().voidItem())
                .onFailure().invoke(failure -> {
                    written.remove(poll.id());
                    LOG.warnf("gateway %s not registered: %s", poll.id(), failure.toString());
                });
    }

    /**
     * How many distinct gateways were seen within the live window, over every instance: the last count read,
     * at most {@link #COUNT_EVERY_MS} old once the first read is done (0 until then). Never waits.
     */
    public int live() {
        long now = clock.millis();
        if (now - countedAtMs >= COUNT_EVERY_MS && counting.compareAndSet(false, true)) {
            count(now).subscribe().with(n -> {
                live = n;
                countedAtMs = now;
                counting.set(false);
            }, failure -> {
                LOG.debugf("live gateways not counted: %s", failure.toString());
                counting.set(false);
            });
        }
        return live;
    }

    /** Reads the live count now. */
    Uni<Integer> count(long nowMs) {
        return pool.preparedQuery("SELECT count(*) AS live FROM gateways WHERE last_seen >= $1")
                .execute(Tuple.of(at(nowMs - windowMs)))
                .map(rows -> rows.iterator().next().getInteger("live"));
    }

    /** Every gateway remembered and not yet forgotten, by id. */
    public Uni<List<Gateway>> all() {
        return pool.preparedQuery("""
                SELECT id, last_seen, rules_version, admin_url, token_digest FROM gateways
                WHERE last_seen > $1 ORDER BY id""")
                .execute(Tuple.of(at(clock.millis() - forgetAfterMs)))
                .map(rows -> {
                    List<Gateway> all = new ArrayList<>(rows.size());
                    rows.forEach(row -> all.add(gateway(row)));
                    return all;
                });
    }

    /** The live gateways whose management address is known, by id: the ones the live view reads. */
    public Uni<List<Gateway>> addressed() {
        return all().map(all -> all.stream().filter(g -> g.adminUrl() != null && isLive(g)).toList());
    }

    /** Whether {@code gateway} was seen within the live window. */
    public boolean isLive(Gateway gateway) {
        return clock.millis() - gateway.lastSeenMs() <= windowMs;
    }

    private Gateway gateway(Row row) {
        var digest = row.getBuffer("token_digest");
        String adminUrl = row.getString("admin_url");
        String authorization = adminUrl == null || digest == null
                ? null
                : tokens.authorization(digest.getBytes()).orElse(null);
        return new Gateway(row.getString("id"), row.getOffsetDateTime("last_seen").toInstant().toEpochMilli(),
                row.getLong("rules_version"), adminUrl, authorization);
    }

    /** Drops the forgotten rows and, beyond the bound, the longest silent: run after a new gateway's first row. */
    private Uni<Void> trim(long nowMs) {
        return pool.preparedQuery("""
                DELETE FROM gateways WHERE last_seen <= $1 OR id IN (
                    SELECT id FROM gateways ORDER BY last_seen DESC, id OFFSET $2)""")
                .execute(Tuple.of(at(nowMs - forgetAfterMs), maxTracked))
                .replaceWithVoid();
    }

    private void remember(String id, Written next) {
        if (written.size() >= maxTracked) {
            written.values().removeIf(w -> next.atMs() - w.atMs() >= WRITE_EVERY_MS);
        }
        written.put(id, next);
    }

    private static boolean acceptable(String id) {
        return id != null && !id.isBlank() && id.length() <= MAX_ID_LENGTH;
    }

    private static OffsetDateTime at(long epochMs) {
        return Instant.ofEpochMilli(epochMs).atOffset(ZoneOffset.UTC);
    }
}
