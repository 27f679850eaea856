package io.tollgate.gateway.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.tollgate.gateway.config.ConfigError;
import io.tollgate.gateway.config.GatewayConfig;

class UpstreamsTest {

    @Test
    void theLongestPrefixOnWholeSegmentsWins() {
        Upstreams upstreams = new Upstreams(config("http://default:9000", Map.of(
                "api", route("/api", "http://api:80"),
                "v2", route("/api/v2", "https://v2.internal/base/"))));
        assertThat(upstreams.forPath("/api/v2/x").authority()).isEqualTo("v2.internal");
        assertThat(upstreams.forPath("/api/v2/x").basePath()).isEqualTo("/base");
        assertThat(upstreams.forPath("/api/v2/x").port()).isEqualTo(443);
        assertThat(upstreams.forPath("/api/v20").authority()).isEqualTo("api:80");
        assertThat(upstreams.forPath("/api").authority()).isEqualTo("api:80");
        assertThat(upstreams.forPath("/apiary").authority()).isEqualTo("default:9000");
    }

    @Test
    void theSchemeSaysWhichProtocolTheUpstreamSpeaks() {
        Upstreams upstreams = new Upstreams(config("http://default:9000", Map.of(
                "tls", route("/tls", "https://tls.internal"),
                "h2c", route("/h2c", "h2c://grpc.internal:50051/base"),
                "h2", route("/h2", "h2://grpc.internal"))));
        assertThat(upstreams.forPath("/x")).extracting("protocol", "ssl")
                .containsExactly(Upstreams.Protocol.HTTP_1_1, false);
        assertThat(upstreams.forPath("/tls/x")).extracting("protocol", "ssl", "port")
                .containsExactly(Upstreams.Protocol.HTTP_1_1, true, 443);
        assertThat(upstreams.forPath("/h2c/x")).extracting("protocol", "ssl", "port", "basePath", "authority")
                .containsExactly(Upstreams.Protocol.H2C, false, 50051, "/base", "grpc.internal:50051");
        assertThat(upstreams.forPath("/h2/x")).extracting("protocol", "ssl", "port")
                .containsExactly(Upstreams.Protocol.H2, true, 443);
    }

    @Test
    void anUnknownSchemeFailsTheStartNamingTheRoutesKey() {
        assertThatThrownBy(() -> new Upstreams(config("http://x", Map.of("grpc", route("/g", "grpc://y:50051")))))
                .isInstanceOf(ConfigError.class)
                .hasMessageStartingWith("tollgate.gateway.routes.\"grpc\".url=grpc://y:50051")
                .hasMessageContaining("h2c://");
    }

    @Test
    void badUrlsAndPrefixesFailNamingTheKey() {
        assertThatThrownBy(() -> new Upstreams(config("ftp://x", Map.of())))
                .isInstanceOf(ConfigError.class)
                .hasMessageStartingWith("tollgate.gateway.upstream=ftp://x");
        assertThatThrownBy(() -> new Upstreams(config("http://x", Map.of("bad", route("api", "http://y")))))
                .isInstanceOf(ConfigError.class)
                .hasMessageStartingWith("tollgate.gateway.routes.\"bad\".prefix=api");
    }

    private static GatewayConfig.Route route(String prefix, String url) {
        return new GatewayConfig.Route() {

            @Override
            public String prefix() {
                return prefix;
            }

            @Override
            public URI url() {
                return URI.create(url);
            }
        };
    }

    private static GatewayConfig.Gateway config(String upstream, Map<String, GatewayConfig.Route> routes) {
        return new GatewayConfig.Gateway() {

            @Override
            public URI upstream() {
                return URI.create(upstream);
            }

            @Override
            public Map<String, GatewayConfig.Route> routes() {
                return routes;
            }

            @Override
            public String apiKeyHeader() {
                return "X-API-Key";
            }

            @Override
            public Optional<List<String>> trustedProxies() {
                return Optional.empty();
            }

            @Override
            public int ipv6Prefix() {
                return 64;
            }

            @Override
            public GatewayConfig.RepeatOffenders repeatOffenders() {
                throw new UnsupportedOperationException("not read by Upstreams");
            }

            @Override
            public Optional<String> instanceId() {
                return Optional.empty();
            }

            @Override
            public Optional<URI> adminUrl() {
                return Optional.empty();
            }

            @Override
            public Duration connectTimeout() {
                return Duration.ofSeconds(1);
            }

            @Override
            public Duration upstreamTimeout() {
                return Duration.ofSeconds(1);
            }

            @Override
            public Optional<String> upstreamTlsConfigurationName() {
                return Optional.empty();
            }
        };
    }
}
