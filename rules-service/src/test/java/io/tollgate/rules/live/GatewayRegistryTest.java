package io.tollgate.rules.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tollgate.rules.config.RulesConfig;

/** The live count over a window, what the registry remembers per gateway, with a clock the test moves. */
class GatewayRegistryTest {

    private Instant now = Instant.parse("2026-01-01T00:00:00Z");
    private final Clock clock = new Clock() {

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    };

    @Test
    void countsDistinctGatewaysSeenWithinTheWindow() {
        GatewayRegistry registry = new GatewayRegistry(clock, config(Duration.ofSeconds(60), 100),
                new SimpleMeterRegistry());

        registry.seen("gw-1");
        registry.seen("gw-2");
        registry.seen("gw-1");
        registry.seen(null);
        registry.seen(" ");
        assertThat(registry.live()).isEqualTo(2);

        now = now.plusSeconds(45);
        registry.seen("gw-2");
        now = now.plusSeconds(20);
        assertThat(registry.live()).as("gw-1 last seen 65 s ago").isEqualTo(1);
        now = now.plusSeconds(60);
        assertThat(registry.live()).isZero();
    }

    @Test
    void staysBoundedUnderAFloodOfIds() {
        GatewayRegistry registry = new GatewayRegistry(clock, config(Duration.ofSeconds(60), 3),
                new SimpleMeterRegistry());
        for (int i = 0; i < 10; i++) {
            registry.seen("gw-" + i);
        }
        assertThat(registry.live()).isEqualTo(3);
        registry.seen("x".repeat(GatewayRegistry.MAX_ID_LENGTH + 1));
        assertThat(registry.live()).isEqualTo(3);
    }

    @Test
    void remembersTheVersionHeldAndKeepsTheLastGoodAdminUrl() {
        GatewayRegistry registry = new GatewayRegistry(clock, config(Duration.ofSeconds(60), 100),
                new SimpleMeterRegistry());
        registry.seen("gw-1");
        assertThat(registry.all()).singleElement().satisfies(g -> {
            assertThat(g.rulesVersion()).isEqualTo(GatewayRegistry.UNKNOWN_VERSION);
            assertThat(g.adminUrl()).isNull();
        });

        registry.seen("gw-1", "http://10.0.0.7:9000/", "Bearer t");
        registry.holds("gw-1", 7);
        registry.seen("gw-1"); // a call without a trusted address keeps the one known
        registry.seen("gw-1", "ftp://10.0.0.7", "Bearer t"); // not http(s): ignored
        registry.seen("gw-1", "http://u:p@10.0.0.7:9000", "Bearer t"); // credentials in the URL: ignored

        GatewayRegistry.Gateway gw = registry.all().get(0);
        assertThat(gw.rulesVersion()).isEqualTo(7);
        assertThat(gw.adminUrl()).isEqualTo("http://10.0.0.7:9000");
        assertThat(gw.authorization()).isEqualTo("Bearer t");
        registry.holds("gw-2", 7);
        assertThat(registry.all()).hasSize(1);
    }

    @Test
    void listsGatewaysNoLongerLiveUntilForgotten() {
        GatewayRegistry registry = new GatewayRegistry(clock, config(Duration.ofSeconds(60), 100),
                new SimpleMeterRegistry());
        registry.seen("gw-1");
        now = now.plusSeconds(61);
        assertThat(registry.all()).singleElement().satisfies(g -> assertThat(registry.isLive(g)).isFalse());
        now = now.plus(Duration.ofMinutes(15));
        assertThat(registry.all()).isEmpty();
    }

    @Test
    void aFullRegistryMakesRoomByForgettingGatewaysNoLongerLive() {
        GatewayRegistry registry = new GatewayRegistry(clock, config(Duration.ofSeconds(60), 2),
                new SimpleMeterRegistry());
        registry.seen("gw-1");
        now = now.plusSeconds(61);
        registry.seen("gw-2");
        registry.seen("gw-3");
        assertThat(registry.all()).extracting(GatewayRegistry.Gateway::id).containsExactly("gw-2", "gw-3");
    }

    private static RulesConfig config(Duration window, int maxTracked) {
        return new RulesConfig() {

            @Override
            public Admin admin() {
                return new Admin() {

                    @Override
                    public Optional<String> token() {
                        return Optional.empty();
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
                        return window;
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
