package io.tollgate.e2e.support;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.stream.Stream;

import org.jboss.logging.Logger;
import org.openqa.selenium.By;
import org.openqa.selenium.Cookie;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * A real headless Chromium (Debian's {@code chromium}) driven through its {@code chromedriver} on a free port, with a
 * fresh profile and a laptop-sized window. Every wait has a bound ({@link #WAIT}); {@link #screenshot} saves PNGs
 * under {@code e2e/target/screenshots/} for a person to look at. Without Chromium on the machine it fails, naming
 * the packages to install: a browser test that cannot run is a failure, never a skip.
 */
public final class Browser implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(Browser.class);
    /** How long any wait for the page lasts: ten processes share two cores while the tests run. */
    public static final Duration WAIT = Duration.ofSeconds(15);

    private final Path profile;
    private final ChromeDriverService service;
    private final ChromeDriver driver;

    public Browser() {
        File chromium = executable("chromium", "chromium");
        File chromedriver = executable("chromedriver", "chromium-driver");
        try {
            profile = Files.createTempDirectory("tollgate-chromium-");
            Path logs = Repo.path("e2e/target/e2e-logs");
            Files.createDirectories(logs);
            service = new ChromeDriverService.Builder()
                    .usingDriverExecutable(chromedriver)
                    .usingPort(FreePorts.next())
                    .withLogFile(logs.resolve("chromedriver-" + profile.getFileName() + ".log").toFile())
                    .build();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ChromeOptions options = new ChromeOptions();
        options.setBinary(chromium);
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                "--user-data-dir=" + profile, "--window-size=1366,900", "--no-first-run",
                "--no-default-browser-check", "--disable-extensions");
        LoggingPreferences logging = new LoggingPreferences();
        logging.enable(LogType.BROWSER, Level.ALL);
        options.setCapability("goog:loggingPrefs", logging);
        try {
            driver = new ChromeDriver(service, options);
        } catch (RuntimeException e) {
            service.stop();
            deleteProfile();
            throw e;
        }
        LOG.infof("Chromium %s runs headless, driven on port %d, profile %s",
                driver.getCapabilities().getBrowserVersion(), service.getUrl().getPort(), profile);
    }

    /** The first {@code name} on the PATH; fails naming the Debian package that installs it. */
    private static File executable(String name, String debianPackage) {
        String path = Optional.ofNullable(System.getenv("PATH")).orElse("");
        return Stream.of(path.split(File.pathSeparator))
                .map(dir -> new File(dir, name))
                .filter(File::canExecute)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no " + name + " on the PATH: the console's browser tests "
                        + "need Debian's chromium and chromium-driver (./tollgate test installs them as root; otherwise "
                        + "apt-get install " + debianPackage + ")"));
    }

    public WebDriver driver() {
        return driver;
    }

    /** Loads {@code url} and waits until its document has loaded. */
    public Browser open(String url) {
        driver.get(url);
        return this;
    }

    public String currentUrl() {
        return driver.getCurrentUrl();
    }

    /** Waits, at most {@link #WAIT}, until {@code condition} holds (is neither null nor false), and returns its value. */
    public <T> T until(String what, Function<WebDriver, T> condition) {
        return until(what, WAIT, condition);
    }

    /**
     * Like {@link #until(String, Function)}, waiting at most {@code atMost}; an element the page replaced while the
     * condition read it only means asking again.
     */
    public <T> T until(String what, Duration atMost, Function<WebDriver, T> condition) {
        return new WebDriverWait(driver, atMost).withMessage(what).ignoring(StaleElementReferenceException.class)
                .until(condition);
    }

    /** The element {@code css} selects, once it is visible. */
    public WebElement visible(String css) {
        return until(css + " visible", ExpectedConditions.visibilityOfElementLocated(By.cssSelector(css)));
    }

    /** The element {@code css} selects, once it is in the page (visible or not). */
    public WebElement present(String css) {
        return until(css + " in the page", ExpectedConditions.presenceOfElementLocated(By.cssSelector(css)));
    }

    /** Every element {@code css} selects now, without waiting. */
    public List<WebElement> all(String css) {
        return driver.findElements(By.cssSelector(css));
    }

    /** Clicks the element {@code css} selects once it can be clicked. */
    public void click(String css) {
        until(css + " clickable", ExpectedConditions.elementToBeClickable(By.cssSelector(css))).click();
    }

    /** Replaces the text of the input or textarea {@code css} selects. */
    public void type(String css, String text) {
        WebElement field = visible(css);
        field.clear();
        field.sendKeys(text);
    }

    /**
     * Sets the value of a textarea or input by script, and fires {@code input} and {@code change} as typing would:
     * for long texts (JSON, YAML) whose typing, key by key, would only cost time.
     */
    public void fill(String css, String text) {
        WebElement field = present(css);
        script("arguments[0].value = arguments[1];"
                + "arguments[0].dispatchEvent(new Event('input', {bubbles: true}));"
                + "arguments[0].dispatchEvent(new Event('change', {bubbles: true}));", field, text);
    }

    /** Waits until the page's URL path is {@code path} (no query), after a navigation the page makes. */
    public void awaitPath(String path) {
        until("the page at " + path + " (now " + driver.getCurrentUrl() + ")",
                d -> URI.create(d.getCurrentUrl()).getPath().equals(path));
    }

    /** Empties the browser's HTTP cache (DevTools' Network.clearBrowserCache): the next load is a first visit's. */
    public void clearCache() {
        driver.executeCdpCommand("Network.clearBrowserCache", Map.of());
    }

    public Object script(String javascript, Object... args) {
        return ((JavascriptExecutor) driver).executeScript(javascript, args);
    }

    /**
     * Runs {@code javascript} until it calls its last argument (a callback) with the result, e.g. when a fetch
     * answers; the script's wait is the driver's (30 s unless set).
     */
    public Object asyncScript(String javascript, Object... args) {
        return ((JavascriptExecutor) driver).executeAsyncScript(javascript, args);
    }

    /** The value of the cookie {@code name} the browser holds for the current page, if any. */
    public Optional<String> cookie(String name) {
        return Optional.ofNullable(driver.manage().getCookieNamed(name)).map(Cookie::getValue);
    }

    /** Saves what the window shows as {@code e2e/target/screenshots/<name>.png} and returns the file. */
    public Path screenshot(String name) {
        try {
            Path dir = Repo.path("e2e/target/screenshots");
            Files.createDirectories(dir);
            Path file = dir.resolve(name + ".png");
            Files.write(file, driver.getScreenshotAs(OutputType.BYTES));
            LOG.infof("screenshot %s", file);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** What the pages wrote to the browser's console so far (errors, warnings, logs), oldest first. */
    public List<String> consoleLines() {
        return driver.manage().logs().get(LogType.BROWSER).getAll().stream().map(LogEntry::toString).toList();
    }

    @Override
    public void close() {
        try {
            driver.quit();
        } finally {
            service.stop();
            deleteProfile();
        }
    }

    private void deleteProfile() {
        try (Stream<Path> files = Files.walk(profile)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            LOG.warnf("could not delete the browser profile %s: %s", profile, e);
        }
    }
}
