package io.tollgate.rules.api;

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

/** The live count over a window, with a clock the test moves. */
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
                    public Map<String, String> tokens() {
                        return Map.of();
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
