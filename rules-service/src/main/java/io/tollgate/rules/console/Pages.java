package io.tollgate.rules.console;

import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;

import io.quarkus.qute.Engine;
import io.quarkus.qute.TemplateInstance;
import io.tollgate.rules.auth.Session;

/**
 * Renders the console's page shells ({@code templates/console/<name>.html}): the layout, the nav, the session's
 * CSRF token in {@code <meta name="csrf-token">} and the page's script; the page's data comes from the API.
 */
@ApplicationScoped
class Pages {

    static final String HOME = "/console/rules";

    private final Engine engine;
    private final ConsoleAssets assets;

    Pages(Engine engine, ConsoleAssets assets) {
        this.engine = engine;
        this.assets = assets;
    }

    /** The login form, with {@code error} shown when not null; it never echoes what was typed. */
    TemplateInstance login(String error) {
        return engine.getTemplate("console/login").data("assets", assets.base()).data("error", error);
    }

    /**
     * A page of a logged-in session.
     *
     * @param name
     * the template and its script ({@code <name>.js})
     * @param title
     * the page's {@code h1} and title
     * @param nav
     * the nav entry it belongs to ({@code rules}, {@code import}, ...)
     * @param data
     * what the page's script needs from its URL (a rule or tenant id), as {@code data-*} of its {@code main}
     */
    TemplateInstance page(Session session, String name, String title, String nav, Map<String, String> data) {
        return engine.getTemplate("console/" + name)
                .data("assets", assets.base())
                .data("csrf", session.csrfToken())
                .data("actor", session.actor())
                .data("title", title)
                .data("nav", nav)
                .data("script", name)
                .data("main", data);
    }
}
