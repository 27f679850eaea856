package io.tollgate.counter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class CounterKeysTest {

    @Test
    void safe_client_key_stays_literal_inside_the_hash_tag() {
        assertThat(CounterKeys.key("orders.write", "ak_42")).isEqualTo("rl:orders.write:{ak_42}");
        assertThat(CounterKeys.key("r", "A-z.0_9~")).isEqualTo("rl:r:{A-z.0_9~}");
        assertThat(CounterKeys.key("r", "x".repeat(64))).isEqualTo("rl:r:{" + "x".repeat(64) + "}");
    }

    @Test
    void long_key_becomes_its_sha256() {
        // printf 'x%.0s' {1..65} | sha256sum
        assertThat(CounterKeys.key("r", "x".repeat(65)))
                .isEqualTo("rl:r:{sha256:9537c5fdf120482f7d58d25e9ed583f52c02b4e304ea814db1633ad565aed7e9}");
    }

    @Test
    void odd_bytes_become_a_digest() {
        // printf '10.0.0.1:80' | sha256sum
        assertThat(CounterKeys.key("r", "10.0.0.1:80"))
                .isEqualTo("rl:r:{sha256:e0f2af3b3dabfb17b72fab652e26af0f91a4b34cdeeb4e30c50121baa2b41f42}");
        // printf 'a}b' | sha256sum: a brace would break the hash tag
        assertThat(CounterKeys.key("r", "a}b"))
                .isEqualTo("rl:r:{sha256:538c54fe17b56e2f2b4753732e0de804a57caae257094071291626ea38e826d7}");
    }

    @Test
    void empty_key_becomes_the_digest_of_nothing() {
        assertThat(CounterKeys.key("r", ""))
                .isEqualTo("rl:r:{sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855}");
    }

    @Test
    void unicode_key_is_digested_from_its_utf8_bytes() {
        // printf 'ключ' | sha256sum
        assertThat(CounterKeys.key("r", "ключ"))
                .isEqualTo("rl:r:{sha256:1de36a32af798da0c1ac9297603a320ed8fe567cf21c9177112a4ce914ebb8be}");
    }

    @Test
    void a_literal_key_never_looks_like_a_digest() {
        String digestLooking = "sha256:" + "0".repeat(64);
        assertThat(CounterKeys.key("r", digestLooking)).isNotEqualTo("rl:r:{" + digestLooking + "}");
    }

    @Test
    void missing_rule_id_is_refused() {
        assertThatThrownBy(() -> CounterKeys.key("", "k")).hasMessageContaining("ruleId");
    }

    @Test
    void a_tenants_client_carries_the_tenants_hash_tag() {
        assertThat(CounterKeys.key("orders.write", "acme", "ak_42")).isEqualTo("rl:orders.write:{acme}:ak_42");
        assertThat(CounterKeys.tenantKey("per.tenant", "acme")).isEqualTo("rl:per.tenant:{acme}:@");
        assertThat(CounterKeys.tenantKey("per.tenant", "acme")).as("an API key spelled as the tenant's id")
                .isNotEqualTo(CounterKeys.key("per.tenant", "acme"));
        assertThat(CounterKeys.windowed(CounterKeys.tenantKey("per.tenant", "acme"), "2026-12"))
                .isNotEqualTo(CounterKeys.windowed(CounterKeys.key("per.tenant", "acme"), "2026-12"));
        assertThat(CounterKeys.key("r", "acme", "a}b")).startsWith("rl:r:{acme}:sha256:");
    }
}
