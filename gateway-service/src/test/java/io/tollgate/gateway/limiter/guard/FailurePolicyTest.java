package io.tollgate.gateway.limiter.guard;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import io.tollgate.counter.Algorithm;
import io.tollgate.counter.Policy;

class FailurePolicyTest {

    @Test
    void theLocalShareDividesLimitAndBurstByLiveGatewaysAtLeastOne() {
        Policy policy = new Policy(Algorithm.TOKEN_BUCKET, 10, 1000, 20);
        assertThat(FailurePolicy.share(policy, 3)).isEqualTo(new Policy(Algorithm.TOKEN_BUCKET, 3, 1000, 6));
        assertThat(FailurePolicy.share(policy, 50)).isEqualTo(new Policy(Algorithm.TOKEN_BUCKET, 1, 1000, 1));
        assertThat(FailurePolicy.share(policy, 0)).isEqualTo(policy);
    }
}
