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

    @Test
    void a_secret_is_always_its_digest_even_when_its_bytes_are_safe() {
        // printf %s sk_live_CUSTOMER_SECRET_1 | sha256sum
        assertThat(CounterKeys.key("orders.write", CounterKeys.secret("sk_live_CUSTOMER_SECRET_1"))).isEqualTo(
                "rl:orders.write:{sha256:ec55d3b93511d9aa888074250efb3de48be4ab46844576740ab64a09de49f374}");
        // printf %s ak_42 | sha256sum
        assertThat(CounterKeys.key("orders.write", CounterKeys.secret("ak_42")))
                .isEqualTo("rl:orders.write:{sha256:12b03a8a91288296bf94333670564f6ec773cb7a373ddd5cd34a3b29ede3c86b}")
                .isNotEqualTo(CounterKeys.key("orders.write", "ak_42"));
        assertThat(CounterKeys.secret("a}b")).as("an unsafe secret digests as a readable key does")
                .isEqualTo(CounterKeys.readable("a}b"));
    }

    @Test
    void a_digest_already_worked_out_gives_the_same_key_as_the_secret() throws Exception {
        byte[] sha256 = java.security.MessageDigest.getInstance("SHA-256")
                .digest("sk_live_CUSTOMER_SECRET_1".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertThat(CounterKeys.digested(sha256)).isEqualTo(CounterKeys.secret("sk_live_CUSTOMER_SECRET_1"));
        assertThat(CounterKeys.digested(sha256).part())
                .isEqualTo("sha256:ec55d3b93511d9aa888074250efb3de48be4ab46844576740ab64a09de49f374");
        assertThatThrownBy(() -> CounterKeys.digested(new byte[31])).hasMessageContaining("32 bytes");
    }

    @Test
    void a_tenants_client_is_its_digest_under_the_tenants_readable_tag() {
        assertThat(CounterKeys.key("orders.write", CounterKeys.readable("acme"), CounterKeys.secret("ak_42")))
                .isEqualTo("rl:orders.write:{acme}:sha256:12b03a8a91288296bf94333670564f6ec773cb7a373ddd5cd34a3b29ede3c86b");
        assertThat(CounterKeys.tenantKey("per.tenant", CounterKeys.readable("acme"))).isEqualTo("rl:per.tenant:{acme}:@");
        // printf %s acme | sha256sum: an API key spelled as the tenant's id has a tag of its own
        assertThat(CounterKeys.key("per.tenant", CounterKeys.secret("acme")))
                .isEqualTo("rl:per.tenant:{sha256:822b33ad87c148a0a20a5ba7cd5ebcaa68d36a18e7aad165554903f52ca82757}");
    }

    @Test
    void the_sha256_of_a_client_is_the_digest_of_the_key_as_sent() {
        // printf %s 10.0.0.7 | sha256sum
        assertThat(CounterKeys.readable("10.0.0.7").part()).isEqualTo("10.0.0.7");
        assertThat(CounterKeys.readable("10.0.0.7").sha256())
                .isEqualTo("130e4daba9786013f48dc2fccf39f91a0b3ec2cfba74ff0b645acf95229df69e");
        assertThat(CounterKeys.secret("ak_42").sha256())
                .isEqualTo("12b03a8a91288296bf94333670564f6ec773cb7a373ddd5cd34a3b29ede3c86b");
        assertThat(CounterKeys.secret("ak_42")).hasToString(CounterKeys.secret("ak_42").part());
    }
}
