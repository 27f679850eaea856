package io.tollgate.rules.api;

import static io.tollgate.rules.Api.ADMIN;
import static io.tollgate.rules.Api.as;
import static io.tollgate.rules.Directory.importClients;
import static io.tollgate.rules.Directory.putTenant;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.oneOf;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tollgate.rules.TestDatabase;
import io.tollgate.rules.domain.ClientDigest;
import io.tollgate.rules.domain.DirectoryChanges;
import io.tollgate.rules.domain.DirectoryCodec;

/** The README's directory examples hold: its NDJSON imports, its page reads as gateways read pages. */
@QuarkusTest
@WithTestResource(value = TestDatabase.class, scope = TestResourceScope.GLOBAL)
class ReadmeExamplesTest {

    @Test
    void theBulkImportExampleImports() throws IOException {
        as(ADMIN).body("{\"id\": \"orders.write\", \"key\": \"api_key\", \"limit\": 10, \"period\": \"1s\","
                + " \"plans\": {\"pro\": {\"limit\": 100}}}").put("/api/v1/rules/orders.write").then()
                .statusCode(oneOf(200, 201));
        putTenant("acme", "{}").then().statusCode(oneOf(200, 201));
        importClients(block("**Bulk import.**"), true).then().statusCode(200).body("lines", is(2));
    }

    @Test
    void thePageExampleReadsAsAPage() throws IOException {
        DirectoryChanges page = new DirectoryCodec()
                .parseChanges(block("**What gateways read.**").getBytes(StandardCharsets.UTF_8));
        assertThat(page.seq()).isEqualTo(1042);
        assertThat(page.clients().get(0).digest()).isEqualTo(ClientDigest.of("ak_2"));
        assertThat(page.clients().get(0).deleted()).isTrue();
        assertThat(page.clients().get(1).digest()).isEqualTo(ClientDigest.of("ak_1"));
        assertThat(page.clients().get(1).entry().plan()).isEqualTo("pro");
    }

    /** The first fenced block after {@code marker} in the README. */
    private static String block(String marker) throws IOException {
        String readme = Files.readString(Path.of("README.md"));
        int from = readme.indexOf("```", readme.indexOf(marker));
        int start = readme.indexOf('\n', from) + 1;
        return readme.substring(start, readme.indexOf("```", start));
    }
}
