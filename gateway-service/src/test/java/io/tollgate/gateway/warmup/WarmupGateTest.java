package io.tollgate.gateway.warmup;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import io.tollgate.rules.domain.Rule;

class WarmupGateTest {

    private final WarmupGate gate = new WarmupGate();

    @Test
    void onlyThisProcesssSecretIsTheWarmupsOwn() {
        assertThat(gate.isSecret(gate.secret())).isTrue();
        assertThat(gate.isSecret(null)).isFalse();
        assertThat(gate.isSecret("")).isFalse();
        assertThat(gate.isSecret(gate.secret() + "x")).isFalse();
        assertThat(gate.isSecret(new WarmupGate().secret())).as("another process's").isFalse();
        assertThat(gate.secret()).hasSizeGreaterThanOrEqualTo(43); // 256 random bits
    }

    @Test
    void rulesByPathNeverRejectRejectOnePerWindowOrNone() {
        Rule check = gate.rules(WarmupGate.CHECK_PATH).get(0);
        assertThat(check.id()).isEqualTo("tollgate.warmup");
        assertThat(check.limit()).isEqualTo(1_000_000_000L);
        Rule reject = gate.rules(WarmupGate.REJECT_PATH).get(0);
        assertThat(reject.limit()).isEqualTo(1);
        assertThat(reject.period()).isEqualTo(WarmupGate.REJECT_WINDOW);
        assertThat(gate.rules(WarmupGate.PASS_PATH)).isEmpty();
        assertThat(gate.rules("/anything")).isEmpty();
    }
}
