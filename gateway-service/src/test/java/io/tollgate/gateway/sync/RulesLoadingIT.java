package io.tollgate.gateway.sync;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The same tests against the packaged jar (and the native executable where one is built). */
@QuarkusIntegrationTest
class RulesLoadingIT extends RulesLoadingTest {
}
