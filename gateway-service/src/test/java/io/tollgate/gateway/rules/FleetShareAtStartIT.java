package io.tollgate.gateway.rules;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The same test against the packaged jar. */
@QuarkusIntegrationTest
class FleetShareAtStartIT extends FleetShareAtStartTest {
}
