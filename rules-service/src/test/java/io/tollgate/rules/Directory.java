package io.tollgate.rules;

import static io.restassured.RestAssured.given;
import static io.tollgate.rules.Api.ADMIN;
import static io.tollgate.rules.Api.as;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import io.restassured.response.Response;
import io.tollgate.rules.domain.ClientDigest;

/** Helpers of the directory tests: the rules they name, entries, and what PostgreSQL holds. */
public final class Directory {

    /** Keyed api_key, plans free and pro. */
    public static final String ORDERS = "dir.orders";
    /** Keyed tenant, plan enterprise. */
    public static final String PER_TENANT = "dir.tenant";

    private Directory() {
    }

    /** Puts the rules the directory tests name (other test classes may have replaced the rule set). */
    public static void rules() {
        as(ADMIN).body("""
                {"id": "%s", "key": "api_key", "limit": 10, "period": "1m",
                 "plans": {"free": {"limit": 2}, "pro": {"limit": 100, "burst": 200}}}""".formatted(ORDERS))
                .put("/api/v1/rules/" + ORDERS).then().statusCode(org.hamcrest.Matchers.oneOf(200, 201));
        as(ADMIN).body("""
                {"id": "%s", "key": "tenant", "limit": 1000, "period": "1m",
                 "plans": {"enterprise": {"limit": 5000}}}""".formatted(PER_TENANT))
                .put("/api/v1/rules/" + PER_TENANT).then().statusCode(org.hamcrest.Matchers.oneOf(200, 201));
    }

    public static Response putTenant(String id, String body) {
        return as(ADMIN).body(body).put("/api/v1/tenants/" + id);
    }

    public static Response putClient(String key, String body) {
        return as(ADMIN).body(body).header("X-API-Key", key).put("/api/v1/clients/key");
    }

    /** A tenant id of one test. */
    public static String tenantId(String prefix) {
        return Api.id(prefix);
    }

    /** An API key of one test. */
    public static String key(String prefix) {
        return "ak_" + Api.id(prefix);
    }

    public static String digest(String key) {
        return ClientDigest.of(key);
    }

    /** A bulk import request of {@code ndjson}. */
    public static Response importClients(String ndjson, boolean dryRun) {
        return given().header("Authorization", ADMIN)
                .contentType("application/x-ndjson")
                .queryParam("dry_run", dryRun)
                .body(ndjson.getBytes(java.nio.charset.StandardCharsets.UTF_8))
                .put("/api/v1/clients");
    }

    /** The directory's seq, read from PostgreSQL. */
    public static long seq() {
        return Long.parseLong(query("SELECT seq FROM directory_seq").get(0));
    }

    /** The first column of every row of {@code sql}, as text. */
    public static List<String> query(String sql) {
        try (Connection c = DriverManager.getConnection(TestDatabase.jdbcUrl(TestDatabase.current()), "postgres", "");
                Statement s = c.createStatement();
                ResultSet rows = s.executeQuery(sql)) {
            List<String> out = new ArrayList<>();
            while (rows.next()) {
                out.add(rows.getString(1));
            }
            return out;
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }
}
