package io.tollgate.rules.api;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The same tests against the packaged jar. */
@QuarkusIntegrationTest
class DirectoryApiIT extends DirectoryApiTest {
}
