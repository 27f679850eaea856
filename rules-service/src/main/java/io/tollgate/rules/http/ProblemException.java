package io.tollgate.rules.http;

import java.util.Map;

/** An error answer decided in the API layer, carried to {@link ProblemMappers}. */
public class ProblemException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient Problem problem;
    private final transient Map<String, String> headers;

    public ProblemException(Problem problem) {
        this(problem, Map.of());
    }

    public ProblemException(Problem problem, Map<String, String> headers) {
        super(problem.detail());
        this.problem = problem;
        this.headers = headers;
    }

    public Problem problem() {
        return problem;
    }

    public Map<String, String> headers() {
        return headers;
    }
}
