package io.tollgate.gateway.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import io.vertx.core.MultiMap;

/** The header filter alone (pure logic; ProxyTest shows it through real HTTP). */
class HopByHopTest {

    @Test
    void connectionNamesAreMatchedWholeIgnoringCaseAndSpaces() {
        assertThat(HopByHop.listed("keep-alive, X-Drop-Me", "x-drop-me")).isTrue();
        assertThat(HopByHop.listed("keep-alive,X-Drop-Me ", "X-DROP-ME")).isTrue();
        assertThat(HopByHop.listed("  x-a ,, x-b", "X-B")).isTrue();
        assertThat(HopByHop.listed("keep-alive, X-Drop-Me", "X-Drop")).as("a prefix is another name").isFalse();
        assertThat(HopByHop.listed("keep-alive, X-Drop-Me", "Drop-Me")).as("a suffix is another name").isFalse();
        assertThat(HopByHop.listed("", "X-A")).isFalse();
        assertThat(HopByHop.listed(",", "X-A")).isFalse();
    }

    @Test
    void hopByHopHeadersInAnyCaseAndThoseConnectionNamesStayBehind() {
        MultiMap from = MultiMap.caseInsensitiveMultiMap()
                .add("CONNECTION", "Keep-Alive, x-secret")
                .add("Keep-Alive", "timeout=5")
                .add("Transfer-Encoding", "chunked")
                .add("TE", "trailers")
                .add("Upgrade", "h2c")
                .add("Expect", "100-continue")
                .add("Proxy-Authorization", "Basic x")
                .add("X-Secret", "hop")
                .add("Content-Type", "text/plain")
                .add("X-Many", "1")
                .add("X-Many", "2")
                .add("X-Secretive", "end-to-end");
        MultiMap to = MultiMap.caseInsensitiveMultiMap();

        HopByHop.copy(from, to);

        assertThat(to.names()).containsExactlyInAnyOrder("Content-Type", "X-Many", "X-Secretive");
        assertThat(to.getAll("X-Many")).containsExactly("1", "2");
    }

    @Test
    void everyConnectionLineCountsAndContentLengthStaysWhateverItSays() {
        MultiMap from = MultiMap.caseInsensitiveMultiMap()
                .add("Connection", "keep-alive")
                .add("Connection", "X-Second, content-length")
                .add("X-Second", "hop")
                .add("Content-Length", "5");
        MultiMap to = MultiMap.caseInsensitiveMultiMap();

        HopByHop.copy(from, to);

        assertThat(to.names()).containsExactly("Content-Length");
    }

    @Test
    void theFirstNameConnectionListsThatIsReliedOnIsFound() {
        MultiMap headers = MultiMap.caseInsensitiveMultiMap().add("Connection", "close").add("Connection",
                " keep-alive ,X-API-Key,, Host");

        assertThat(HopByHop.listedOf(headers, name -> name.equalsIgnoreCase("x-api-key"))).isEqualTo("X-API-Key");
        assertThat(HopByHop.listedOf(headers, name -> name.equalsIgnoreCase("x-api"))).isNull();
        assertThat(HopByHop.listedOf(MultiMap.caseInsensitiveMultiMap(), name -> true)).isNull();
    }

    @Test
    void aClientThatTakesTrailersIsSeen() {
        assertThat(HopByHop.acceptsTrailers(MultiMap.caseInsensitiveMultiMap().add("te", "trailers"))).isTrue();
        assertThat(HopByHop.acceptsTrailers(MultiMap.caseInsensitiveMultiMap().add("TE", "gzip, Trailers"))).isTrue();
        assertThat(HopByHop.acceptsTrailers(MultiMap.caseInsensitiveMultiMap().add("TE", "gzip"))).isFalse();
        assertThat(HopByHop.acceptsTrailers(MultiMap.caseInsensitiveMultiMap().add("TE", "trailersx"))).isFalse();
        assertThat(HopByHop.acceptsTrailers(MultiMap.caseInsensitiveMultiMap())).isFalse();
        assertThat(HopByHop.acceptsTrailers(MultiMap.caseInsensitiveMultiMap().add("TE", "gzip").add("te", "trailers")))
                .as("a second TE line is the same list").isTrue();
    }
}
