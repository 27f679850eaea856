package io.tollgate.gateway.limiter;

import io.quarkus.test.junit.QuarkusIntegrationTest;

@QuarkusIntegrationTest
class SlowStoreIT extends SlowStoreTest {
}
