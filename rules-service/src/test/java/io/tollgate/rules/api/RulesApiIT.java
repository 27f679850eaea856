package io.tollgate.rules.api;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The same API tests against the packaged jar. */
@QuarkusIntegrationTest
class RulesApiIT extends RulesApiTest {
}
