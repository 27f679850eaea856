package io.tollgate.rules.store;

import static io.tollgate.rules.Api.ADMIN;
import static io.tollgate.rules.Api.as;
import static io.tollgate.rules.Api.id;
import static io.tollgate.rules.Api.rule;
import static io.tollgate.rules.Api.version;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import jakarta.inject.Inject;

import org.eclipse.microprofile.config.ConfigProvider;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tollgate.rules.TestDatabase;
import io.tollgate.rules.config.RulesConfig;

/**
 * What a restart does, against the database the app wrote: the migrations are not run again, and a fresh
 * instance (new Vert.x, new pool) reads the same rules at the same version.
 */
@QuarkusTest
@WithTestResource(value = TestDatabase.class, scope = TestResourceScope.GLOBAL)
class RestartTest {

    @Inject
    RulesConfig config;

    @Test
    void migrationsRunOnceAndDataAndVersionSurvive() throws Exception {
        String id = id("durable");
        as(ADMIN).body(rule(id, 9)).post("/api/v1/rules").then().statusCode(201);
        long version = version();
        String jdbc = ConfigProvider.getConfig().getValue("quarkus.datasource.jdbc.url", String.class);

        // a restart migrates at start: Flyway finds every migration applied and applies none
        Flyway flyway = Flyway.configure().dataSource(jdbc, "postgres", "").load();
        assertThat(flyway.migrate().migrationsExecuted).isZero();
        try (Connection c = DriverManager.getConnection(jdbc, "postgres", "");
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(
                        "SELECT version FROM flyway_schema_history WHERE success ORDER BY installed_rank")) {
            List<String> applied = new ArrayList<>();
            while (rs.next()) {
                applied.add(rs.getString(1));
            }
            assertThat(applied).as("each migration applied exactly once").containsExactly("1", "2", "3");
        }

        try (SecondInstance restarted = new SecondInstance(config)) {
            assertThat(restarted.store.version().await().atMost(Duration.ofSeconds(5))).isEqualTo(version);
            StoredRule stored = restarted.store.find(id).await().atMost(Duration.ofSeconds(5)).orElseThrow();
            assertThat(stored.rule().limit()).isEqualTo(9);
            assertThat(restarted.store.all().await().atMost(Duration.ofSeconds(5)).version()).isEqualTo(version);
        }
    }
}
