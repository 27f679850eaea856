package io.tollgate.gateway.store;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The same tests against the packaged jar (and the native executable where one is built). */
@QuarkusIntegrationTest
class CoalescingIT extends CoalescingTest {
}
