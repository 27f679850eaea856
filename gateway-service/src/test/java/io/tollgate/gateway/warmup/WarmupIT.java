package io.tollgate.gateway.warmup;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The same tests against the packaged jar (and the native executable where one is built). */
@QuarkusIntegrationTest
class WarmupIT extends WarmupTest {

    /**
     * The packaged gateway's secret never leaves its process, so the test cannot present it: it presents another
     * value, which the gateway must treat the same way (the JVM test presents the real one).
     */
    @Override
    String secret() {
        return "not-the-gateways-secret";
    }
}
