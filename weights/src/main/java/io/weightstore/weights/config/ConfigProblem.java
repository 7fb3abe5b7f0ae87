package io.weightstore.weights.config;

/**
 * What is wrong at one place of a configuration file. {@code section} and {@code key} are empty
 * when the problem is not in a setting (a file that is not YAML, say).
 */
public record ConfigProblem(int line, int column, String section, String key, String message) {
    /** {@code line 3, column 9: master.port: ...}, as error messages show it. */
    @Override
    public String toString() {
        String where = section.isEmpty() ? "" : key.isEmpty() ? section + ": " : section + "." + key + ": ";
        return "line " + line + ", column " + column + ": " + where + message;
    }
}
