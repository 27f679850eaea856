package io.tollgate.rules.live;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tollgate.rules.FreshDatabase;
import io.tollgate.rules.TestClock;
import io.tollgate.rules.config.RulesConfig;
import io.vertx.mutiny.sqlclient.Pool;

/**
 * The shared registry on real PostgreSQL, with a clock the test moves: two registries on one database (two
 * instances) count the same fleet; the live window, the address rule, the bound that drops the longest silent.
 */
class GatewayRegistryTest {

    private static final String TOKEN = "gw-token";
    private static final String BEARER = "Bearer " + TOKEN;
    private static final String SOURCE = "10.0.0.7";

    private final TestClock clock = new TestClock(Instant.parse("2030-01-01T00:00:00Z"));
    private FreshDatabase database;
    private Pool pool;

    @BeforeEach
    void database() {
        database = new FreshDatabase();
        pool = database.pool();
    }

    @AfterEach
    void drop() {
        database.close();
    }

    @Test
    void twoInstancesCountTheGatewaysThatPolledEither() {
        GatewayRegistry a = registry(100, List.of());
        GatewayRegistry b = registry(100, List.of());
        heard(a, "gw-1", null, 3);
        heard(b, "gw-2", null, 3);
        heard(b, "gw-1", null, 3);
        heard(a, " ", null, 3);
        heard(a, "x".repeat(GatewayRegistry.MAX_ID_LENGTH + 1), null, 3);

        assertThat(count(a)).isEqualTo(2);
        assertThat(count(b)).isEqualTo(2);
        assertThat(ids(b)).containsExactly("gw-1", "gw-2");

        clock.advance(Duration.ofSeconds(45));
        heard(a, "gw-2", null, 3);
        clock.advance(Duration.ofSeconds(20));
        assertThat(count(b)).as("gw-1 last seen 65 s ago").isEqualTo(1);
        clock.advance(Duration.ofSeconds(60));
        assertThat(count(a)).isZero();
    }

    @Test
    void theLiveCountAnAnswerCarriesIsReadAtMostOnceASecond() {
        GatewayRegistry a = registry(100, List.of());
        assertThat(a.live()).as("nothing read yet").isZero();
        heard(a, "gw-1", null, 3);
        clock.advance(Duration.ofMillis(GatewayRegistry.COUNT_EVERY_MS - 1));
        assertThat(a.live()).as("the count read less than a second ago").isZero();
        clock.advance(Duration.ofMillis(1));
        await().atMost(Duration.ofSeconds(5)).until(() -> a.live() == 1);
    }

    @Test
    void remembersTheVersionHeldAndTheLastAddressThatPassedTheRule() {
        GatewayRegistry a = registry(100, List.of("gw-1.internal"));
        GatewayRegistry b = registry(100, List.of("gw-1.internal"));
        heard(a, "gw-1", null, GatewayRegistry.UNKNOWN_VERSION);
        assertThat(all(b)).singleElement().satisfies(g -> {
            assertThat(g.rulesVersion()).isEqualTo(GatewayRegistry.UNKNOWN_VERSION);
            assertThat(g.adminUrl()).isNull();
        });

        heard(a, "gw-1", "http://" + SOURCE + ":9000/", 7);
        assertThat(all(b)).singleElement().satisfies(g -> {
            assertThat(g.rulesVersion()).isEqualTo(7);
            assertThat(g.adminUrl()).isEqualTo("http://" + SOURCE + ":9000");
            assertThat(g.authorization()).as("the configured token it polled with").isEqualTo(BEARER);
        });

        heard(b, "gw-1", null, GatewayRegistry.UNKNOWN_VERSION); // no address, no version: both stay
        heard(b, "gw-1", "http://169.254.169.254/latest", 8); // another host than the poll's: not taken
        heard(a, "gw-1", "ftp://" + SOURCE, 8); // not http(s)
        heard(b, "gw-1", "http://u:p@" + SOURCE + ":9000", 8); // credentials in the URL
        assertThat(all(a)).singleElement().satisfies(g -> {
            assertThat(g.rulesVersion()).isEqualTo(8);
            assertThat(g.adminUrl()).isEqualTo("http://" + SOURCE + ":9000");
        });

        heard(a, "gw-1", "https://GW-1.internal:9443", 8); // on tollgate.live.allowed-hosts
        assertThat(all(b)).singleElement().satisfies(g -> assertThat(g.adminUrl()).isEqualTo(
                "https://GW-1.internal:9443"));
        assertThat(pool.query("SELECT count(*) AS n FROM gateways WHERE encode(token_digest, 'escape') LIKE '%"
                + TOKEN + "%'").execute().await().indefinitely().iterator().next().getInteger("n")).isZero();
    }

    @Test
    void aTokenThisInstanceIsNotConfiguredWithIsNeverSent() {
        GatewayRegistry a = registry(100, List.of());
        a.heard(new GatewayRegistry.Poll("gw-1", SOURCE, "http://" + SOURCE + ":9000", "Bearer other-token", 1))
                .await().indefinitely();
        assertThat(all(a)).singleElement().satisfies(g -> {
            assertThat(g.adminUrl()).isEqualTo("http://" + SOURCE + ":9000");
            assertThat(g.authorization()).isNull();
        });
    }

    @Test
    void listsGatewaysNoLongerLiveUntilForgotten() {
        GatewayRegistry a = registry(100, List.of());
        heard(a, "gw-1", null, 1);
        clock.advance(Duration.ofSeconds(61));
        assertThat(all(a)).singleElement().satisfies(g -> assertThat(a.isLive(g)).isFalse());
        clock.advance(Duration.ofMinutes(15));
        assertThat(all(a)).isEmpty();
    }

    @Test
    void aFullRegistryDropsTheLongestSilentNeverTheNewPoll() {
        GatewayRegistry a = registry(3, List.of());
        GatewayRegistry b = registry(3, List.of());
        heard(a, "gw-1", null, 1);
        clock.advance(Duration.ofSeconds(1));
        heard(b, "gw-2", null, 1);
        clock.advance(Duration.ofSeconds(1));
        heard(a, "gw-3", null, 1);
        clock.advance(Duration.ofSeconds(GatewayRegistry.WRITE_EVERY_MS / 1000));
        heard(b, "gw-1", null, 1); // gw-2 is now the longest silent, though all three are live
        clock.advance(Duration.ofSeconds(1));
        heard(b, "gw-4", null, 1);

        assertThat(ids(a)).containsExactly("gw-1", "gw-3", "gw-4");
        assertThat(count(b)).isEqualTo(3);
    }

    @Test
    void aPollRepeatedWithinTheWriteIntervalIsNotWrittenAgain() {
        GatewayRegistry a = registry(100, List.of());
        heard(a, "gw-1", null, 1);
        clock.advance(Duration.ofSeconds(1));
        heard(a, "gw-1", null, 1);
        assertThat(all(a).get(0).lastSeenMs()).isEqualTo(clock.millis() - 1000);
        heard(a, "gw-1", null, 2); // what it holds changed: written at once
        assertThat(all(a).get(0).lastSeenMs()).isEqualTo(clock.millis());
    }

    private GatewayRegistry registry(int maxTracked, List<String> allowedHosts) {
        RulesConfig config = config(maxTracked);
        return new GatewayRegistry(pool, clock, config, new ReportedAddress(allowedHosts), new GatewayTokens(config),
                new SimpleMeterRegistry());
    }

    private static void heard(GatewayRegistry registry, String id, String url, long version) {
        registry.heard(new GatewayRegistry.Poll(id, SOURCE, url, BEARER, version)).await().indefinitely();
    }

    private int count(GatewayRegistry registry) {
        return registry.count(clock.millis()).await().indefinitely();
    }

    private static List<GatewayRegistry.Gateway> all(GatewayRegistry registry) {
        return registry.all().await().indefinitely();
    }

    private static List<String> ids(GatewayRegistry registry) {
        return all(registry).stream().map(GatewayRegistry.Gateway::id).toList();
    }

    private static RulesConfig config(int maxTracked) {
        return new RulesConfig() {

            @Override
            public Admin admin() {
                return new Admin() {

                    @Override
                    public Optional<String> token() {
                        return Optional.of(TOKEN);
                    }

                    @Override
                    public Map<String, RulesConfig.NamedToken> tokens() {
                        return Map.of();
                    }

                    @Override
                    public WrongTokens wrongTokens() {
                        throw new UnsupportedOperationException("the registry checks no token");
                    }
                };
            }

            @Override
            public Gateways gateways() {
                return new Gateways() {

                    @Override
                    public Duration liveWindow() {
                        return Duration.ofSeconds(60);
                    }

                    @Override
                    public int maxTracked() {
                        return maxTracked;
                    }

                    @Override
                    public Duration forgetAfter() {
                        return Duration.ofMinutes(15);
                    }
                };
            }

            @Override
            public Watch watch() {
                return null;
            }

            @Override
            public Directory directory() {
                return null;
            }

            @Override
            public Console console() {
                return null;
            }
        };
    }
}
