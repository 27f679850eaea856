package io.tollgate.gateway.sync;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The same test against the packaged jar. */
@QuarkusIntegrationTest
class FleetShareAtStartIT extends FleetShareAtStartTest {
}
