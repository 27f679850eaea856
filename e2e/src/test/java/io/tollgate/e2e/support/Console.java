package io.tollgate.e2e.support;

/**
 * The console of a rules service (docs/console.md) as a browser sees it: its pages by path, the login form, and
 * what a page carries for its own writes (the session cookie, the CSRF token). Selects by the console's stable
 * element ids only.
 */
public final class Console {

    public static final String SESSION_COOKIE = "tollgate_session";

    private final Browser browser;
    private final String base;

    /** {@code base}: the rules service's public URL, e.g. {@code http://127.0.0.1:8081}. */
    public Console(Browser browser, String base) {
        this.browser = browser;
        this.base = base;
    }

    public String url(String path) {
        return base + path;
    }

    /** Loads a console page, e.g. {@code /console/rules}, and waits until its heading is there. */
    public Console open(String path) {
        browser.open(url(path));
        browser.visible("main h1");
        return this;
    }

    /** Fills the login form with {@code token} and sends it; the caller checks where it leads. */
    public void submitLogin(String token) {
        if (!browser.currentUrl().startsWith(url("/console/login"))) {
            browser.open(url("/console/login"));
        }
        browser.type("input#token", token);
        browser.click("button#login-submit");
    }

    /** Logs in with {@code token} and waits for the rules page it leads to. */
    public Console login(String token) {
        submitLogin(token);
        browser.awaitPath("/console/rules");
        browser.visible("#rules-version");
        return this;
    }

    /** The session's CSRF token, as the page in the window carries it. */
    public String csrfToken() {
        return (String) browser.script("return document.querySelector('meta[name=\"csrf-token\"]').content");
    }

    /** The value of the session cookie the browser holds. */
    public String session() {
        return browser.cookie(SESSION_COOKIE)
                .orElseThrow(() -> new IllegalStateException("the browser holds no " + SESSION_COOKIE + " cookie"));
    }
}
