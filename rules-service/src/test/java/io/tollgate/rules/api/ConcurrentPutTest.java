package io.tollgate.rules.api;

import static io.tollgate.rules.Api.ADMIN;
import static io.tollgate.rules.Api.as;
import static io.tollgate.rules.Api.id;
import static io.tollgate.rules.Api.reading;
import static io.tollgate.rules.Api.rule;
import static io.tollgate.rules.Api.version;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.tollgate.rules.TestDatabase;

/** 50 PUTs to one rule at once: distinct, strictly increasing versions, no lost update, full history. */
@QuarkusTest
@WithTestResource(value = TestDatabase.class, scope = TestResourceScope.GLOBAL)
class ConcurrentPutTest {

    private static final int WRITERS = 50;

    @Test
    void fiftyConcurrentPutsToOneRule() throws Exception {
        String id = id("hot");
        as(ADMIN).body(rule(id, 1000)).put("/api/v1/rules/" + id).then().statusCode(201);
        long before = version();

        ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Long>> etags = new ArrayList<>();
        for (int i = 1; i <= WRITERS; i++) {
            int limit = i;
            etags.add(pool.submit(() -> {
                go.await();
                Response r = as(ADMIN).body(rule(id, limit)).put("/api/v1/rules/" + id);
                assertThat(r.statusCode()).isEqualTo(200);
                return Long.parseLong(r.header("ETag").replace("\"", ""));
            }));
        }
        go.countDown();
        List<Long> versions = new ArrayList<>();
        for (Future<Long> f : etags) {
            versions.add(f.get(60, TimeUnit.SECONDS));
        }
        pool.shutdown();

        assertThat(versions).as("every PUT committed its own version").doesNotHaveDuplicates()
                .allMatch(v -> v > before && v <= before + WRITERS);
        assertThat(version()).isEqualTo(before + WRITERS);

        Response history = reading().get("/api/v1/rules/" + id + "/history");
        List<Long> revisionVersions = history.jsonPath().getList("revisions.version", Long.class);
        List<Integer> limits = history.jsonPath().getList("revisions.rule.limit", Integer.class);
        assertThat(revisionVersions).hasSize(WRITERS + 1).isSorted().doesNotHaveDuplicates();
        assertThat(revisionVersions.subList(1, WRITERS + 1)).containsExactlyInAnyOrderElementsOf(versions);
        assertThat(limits.subList(1, WRITERS + 1)).as("no update lost").containsExactlyInAnyOrderElementsOf(
                java.util.stream.IntStream.rangeClosed(1, WRITERS).boxed().toList());

        int last = limits.get(limits.size() - 1);
        reading().get("/api/v1/rules/" + id).then().statusCode(200)
                .header("ETag", "\"" + revisionVersions.get(WRITERS) + "\"")
                .body("limit", org.hamcrest.Matchers.is(last));
    }
}
