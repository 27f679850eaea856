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

/**
 * The directory's examples in the docs hold: the NDJSON of a bulk import imports, and the page of changes shown
 * reads as gateways read pages. (The calls around them run in e2e's {@code DocsRunTest}.)
 */
@QuarkusTest
@WithTestResource(value = TestDatabase.class, scope = TestResourceScope.GLOBAL)
class DirectoryDocsExamplesTest {

    @Test
    void theBulkImportExampleImports() throws IOException {
        as(ADMIN).body("{\"id\": \"orders.write\", \"key\": \"api_key\", \"limit\": 10, \"period\": \"1s\","
                + " \"plans\": {\"free\": {\"limit\": 5}, \"pro\": {\"limit\": 100}}}")
                .put("/api/v1/rules/orders.write").then().statusCode(oneOf(200, 201));
        putTenant("acme", "{}").then().statusCode(oneOf(200, 201));
        importClients(block("clients-plans-tenants.md", "### Bulk import", 1), true).then().statusCode(200)
                .body("lines", is(2));
    }

    @Test
    void thePageExampleReadsAsAPage() throws IOException {
        DirectoryChanges page = new DirectoryCodec()
                .parseChanges(block("rules-api.md", "### The directory feed", 2).getBytes(StandardCharsets.UTF_8));
        assertThat(page.seq()).isEqualTo(2);
        assertThat(page.more()).isTrue();
        assertThat(page.tenants().get(0).entry().plan()).isEqualTo("enterprise");
        assertThat(page.clients().get(0).digest()).isEqualTo(ClientDigest.of("ak_free"));
        assertThat(page.clients().get(0).entry().plan()).isEqualTo("free");
    }

    /** The {@code nth} fenced block after {@code marker} in the page {@code doc} of docs/. */
    private static String block(String doc, String marker, int nth) throws IOException {
        String text = Files.readString(Path.of("..", "docs", doc));
        int at = text.indexOf(marker);
        assertThat(at).as(marker + " in " + doc).isNotNegative();
        int start = 0;
        for (int i = 0; i < nth; i++) {
            int fence = text.indexOf("```", at);
            start = text.indexOf('\n', fence) + 1;
            at = text.indexOf("```", start) + 3;
        }
        return text.substring(start, at - 3);
    }
}
