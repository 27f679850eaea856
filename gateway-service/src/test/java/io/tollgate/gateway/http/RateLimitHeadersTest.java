package io.tollgate.gateway.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.tollgate.counter.Algorithm;
import io.tollgate.counter.Decision;
import io.tollgate.gateway.limiter.decision.Outcome;
import io.tollgate.gateway.limiter.decision.RuleDecision;
import io.tollgate.rules.domain.FailureMode;
import io.tollgate.rules.domain.KeySpec;
import io.tollgate.rules.domain.MissingKey;
import io.tollgate.rules.domain.Rule;
import io.tollgate.rules.domain.RuleMatch;
import io.vertx.core.MultiMap;

class RateLimitHeadersTest {

    @Test
    void retryAfterRoundsUpAndIsNeverZero() {
        assertThat(RateLimitHeaders.retryAfterSeconds(0)).isEqualTo(1);
        assertThat(RateLimitHeaders.retryAfterSeconds(-1)).isEqualTo(1);
        assertThat(RateLimitHeaders.retryAfterSeconds(1)).isEqualTo(1);
        assertThat(RateLimitHeaders.retryAfterSeconds(1000)).isEqualTo(1);
        assertThat(RateLimitHeaders.retryAfterSeconds(1001)).isEqualTo(2);
        assertThat(RateLimitHeaders.retryAfterSeconds(9_400)).isEqualTo(10);
    }

    @Test
    void theDesignExampleOfABucket() {
        Rule rule = new Rule("orders.write", null, RuleMatch.ANY, KeySpec.API_KEY, Algorithm.TOKEN_BUCKET, 10,
                Duration.ofSeconds(1), 20, FailureMode.LOCAL, false, true, MissingKey.REJECT, null);
        MultiMap headers = MultiMap.caseInsensitiveMultiMap();
        RateLimitHeaders.write(headers,
                new RuleDecision(rule, new Decision(true, 8, 0, 1200), Outcome.ALLOWED, false));
        assertThat(headers.get("RateLimit-Policy")).isEqualTo("\"orders.write\";q=20;w=2");
        assertThat(headers.get("RateLimit")).isEqualTo("\"orders.write\";r=8;t=2");
        assertThat(headers.get("RateLimit-Limit")).isEqualTo("20");
        assertThat(headers.get("RateLimit-Remaining")).isEqualTo("8");
        assertThat(headers.get("RateLimit-Reset")).isEqualTo("2");
    }

    @Test
    void aWindowReportsItsLimitAndPeriod() {
        Rule rule = new Rule("daily", null, RuleMatch.ANY, KeySpec.GLOBAL, Algorithm.FIXED_WINDOW, 1000,
                Duration.ofDays(1), 1000, FailureMode.OPEN, false, true, MissingKey.REJECT, null);
        MultiMap headers = MultiMap.caseInsensitiveMultiMap();
        RateLimitHeaders.write(headers,
                new RuleDecision(rule, new Decision(true, 999, 0, 3_600_000), Outcome.ALLOWED, false));
        assertThat(headers.get("RateLimit-Policy")).isEqualTo("\"daily\";q=1000;w=86400");
        assertThat(headers.get("RateLimit")).isEqualTo("\"daily\";r=999;t=3600");
    }

    @Test
    void aRuleCountingTokensSaysSoInThePolicy() {
        Rule rule = new Rule("llm.tokens", null, RuleMatch.ANY, KeySpec.API_KEY, Algorithm.TOKEN_BUCKET, 100_000,
                Duration.ofMinutes(1), 100_000, FailureMode.LOCAL, false, true, MissingKey.REJECT, null, 1,
                io.tollgate.rules.domain.Unit.TOKENS, null, null, null, null);
        MultiMap headers = MultiMap.caseInsensitiveMultiMap();
        RateLimitHeaders.write(headers,
                new RuleDecision(rule, new Decision(true, 99_000, 0, 600), Outcome.ALLOWED, false));
        assertThat(headers.get("RateLimit-Policy")).isEqualTo("\"llm.tokens\";q=100000;w=60;qu=\"tokens\"");
        assertThat(headers.get("RateLimit")).isEqualTo("\"llm.tokens\";r=99000;t=1");
    }

    @Test
    void aBucketInDebtSaysNoneIsLeft() {
        Rule rule = new Rule("llm.tokens", null, RuleMatch.ANY, KeySpec.API_KEY, Algorithm.TOKEN_BUCKET, 100,
                Duration.ofSeconds(1), 1000, FailureMode.LOCAL, false, true, MissingKey.REJECT, null);
        MultiMap headers = MultiMap.caseInsensitiveMultiMap();
        RateLimitHeaders.write(headers,
                new RuleDecision(rule, new Decision(false, -500, 6000, 15_000), Outcome.REJECTED, false));
        assertThat(headers.get("RateLimit")).isEqualTo("\"llm.tokens\";r=0;t=15");
        assertThat(headers.get("RateLimit-Remaining")).isEqualTo("0");
    }

    @Test
    void aConcurrencyRuleReportsItsSlotsWithoutAWindow() {
        Rule rule = new Rule("reports.inflight", null, RuleMatch.ANY, KeySpec.API_KEY, Algorithm.CONCURRENCY, 2,
                null, 2, FailureMode.OPEN, false, true, MissingKey.REJECT, null);
        MultiMap headers = MultiMap.caseInsensitiveMultiMap();
        RateLimitHeaders.write(headers,
                new RuleDecision(rule, new Decision(true, 1, 0, 0), Outcome.ALLOWED, false));
        assertThat(headers.get("RateLimit-Policy")).isEqualTo("\"reports.inflight\";q=2;qu=\"concurrent-requests\"");
        assertThat(headers.get("RateLimit")).isEqualTo("\"reports.inflight\";r=1;t=0");
    }
}
