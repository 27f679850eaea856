package io.tollgate.e2e.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.sun.net.httpserver.HttpServer;

/**
 * The harness itself, against a page the JDK's HTTP server serves: the page's script runs, a wait sees what it
 * writes later, the cookie it sets is readable, and a screenshot is a PNG on disk.
 */
class BrowserTest {

    private static final String PAGE = """
            <!doctype html><html><head><title>harness</title></head><body>
            <main><h1>Harness</h1><input id="name" aria-label="name"><button id="go">Go</button><p id="out"></p></main>
            <script>
              document.cookie = "harness=on; path=/";
              document.getElementById("go").addEventListener("click", () =>
                setTimeout(() => { document.getElementById("out").textContent =
                  "hello " + document.getElementById("name").value; }, 300));
            </script></body></html>
            """;

    private static HttpServer server;

    @BeforeAll
    static void serve() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/page", exchange -> {
            byte[] body = PAGE.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "text/html; charset=utf-8");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
    }

    @AfterAll
    static void stop() {
        server.stop(0);
    }

    @Test
    void drivesAPageWaitsForItsScriptAndSavesAScreenshot() throws IOException {
        try (Browser browser = new Browser()) {
            browser.open("http://127.0.0.1:" + server.getAddress().getPort() + "/page");
            assertThat(browser.visible("h1").getText()).isEqualTo("Harness");
            browser.type("#name", "chromium");
            browser.click("#go");

            browser.until("the page's answer", d -> browser.visible("#out").getText().equals("hello chromium"));
            assertThat(browser.cookie("harness")).hasValue("on");
            assertThat(browser.script("return [window.innerWidth, window.outerHeight]").toString()).isEqualTo("[1366, 900]");
            byte[] png = Files.readAllBytes(browser.screenshot("harness"));
            assertThat(new String(png, 1, 3, StandardCharsets.US_ASCII)).isEqualTo("PNG");
        }
    }
}
