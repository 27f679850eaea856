package io.tollgate.rules.console;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;

/** A console login as the tests use it: the session cookie and the CSRF token its pages carry. */
record Console(String session, String csrf) {

    static final String COOKIE = "tollgate_session";
    private static final Pattern META = Pattern.compile("<meta name=\"csrf-token\" content=\"([^\"]+)\">");

    /** Logs in with {@code token} and reads the CSRF token from the rules page. */
    static Console login(String token) {
        Response answer = post(token);
        assertThat(answer.statusCode()).isEqualTo(303);
        String session = answer.cookie(COOKIE);
        assertThat(session).isNotBlank();
        String page = given().cookie(COOKIE, session).get("/console/rules").then().statusCode(200).extract().asString();
        Matcher meta = META.matcher(page);
        assertThat(meta.find()).as("the page carries its CSRF token").isTrue();
        return new Console(session, meta.group(1));
    }

    /** The answer of posting the login form. */
    static Response post(String token) {
        return given().redirects().follow(false).contentType(ContentType.URLENC).formParam("token", token)
                .post("/console/login");
    }

    /** A request with this session's cookie and nothing else. */
    RequestSpecification cookie() {
        return given().redirects().follow(false).cookie(COOKIE, session);
    }

    /** A JSON API request as the console's script makes it: the cookie and the CSRF header. */
    RequestSpecification api() {
        return cookie().header("X-CSRF-Token", csrf).contentType(ContentType.JSON);
    }
}
