package io.tollgate.gateway.admin;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The same tests against the packaged jar, its management interface on the port the test resource gave it. */
@QuarkusIntegrationTest
class TopIT extends TopTest {
}
