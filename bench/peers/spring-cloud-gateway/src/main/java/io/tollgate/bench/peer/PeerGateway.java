package io.tollgate.bench.peer;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.cloud.gateway.filter.ratelimit.RedisRateLimiter;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.cloud.gateway.route.builder.RouteLocatorBuilder;
import org.springframework.context.annotation.Bean;
import reactor.core.publisher.Mono;

/**
 * The peer of the request comparison: one route for every path to {@code peer.upstream}, through the
 * stock RequestRateLimiter filter with the stock {@link RedisRateLimiter} (one Lua script call per request
 * on {@code spring.data.redis.*}), keyed by the {@code X-API-Key} header. The rate and burst are set so
 * that the benchmark's load over 10,000 keys is never rejected: the peer pays for a check on every
 * request, as Tollgate with its rule does.
 */
@SpringBootApplication
public class PeerGateway {

    public static void main(String[] args) {
        SpringApplication.run(PeerGateway.class, args);
    }

    /** The client key: the X-API-Key header (a request without it is denied, the filter's default). */
    @Bean
    KeyResolver apiKeyResolver() {
        return exchange -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-API-Key"));
    }

    @Bean
    RedisRateLimiter redisRateLimiter(@Value("${peer.replenish-rate}") int replenishRate,
            @Value("${peer.burst-capacity}") int burstCapacity) {
        return new RedisRateLimiter(replenishRate, burstCapacity, 1);
    }

    @Bean
    RouteLocator routes(RouteLocatorBuilder builder, RedisRateLimiter limiter, KeyResolver apiKeyResolver,
            @Value("${peer.upstream}") String upstream) {
        return builder.routes()
                .route("all", route -> route.path("/**")
                        .filters(filter -> filter.requestRateLimiter(config -> config
                                .setRateLimiter(limiter)
                                .setKeyResolver(apiKeyResolver)))
                        .uri(upstream))
                .build();
    }
}
