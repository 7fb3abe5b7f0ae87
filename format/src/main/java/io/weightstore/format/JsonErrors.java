package io.weightstore.format;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import java.io.IOException;
import java.util.regex.Pattern;

/**
 * What was wrong with a JSON document, in one line for a person: Jackson's own message adds a second
 * line naming an internal source ("[Source: REDACTED ...]"), which says nothing to whoever wrote the file.
 */
public final class JsonErrors {
    private static final Pattern SOURCE = Pattern.compile("\\[Source: [^;\\]]*; line: (\\d+), column: (\\d+)]");

    private JsonErrors() {}

    public static String describe(IOException e) {
        if (!(e instanceof JsonProcessingException json)) {
            return e.getMessage();
        }
        JsonLocation at = json.getLocation();
        // An unclosed object's message names where it opened as "[Source: REDACTED ...; line: 1, column: 1]".
        String message = SOURCE.matcher(json.getOriginalMessage()).replaceAll("line $1, column $2");
        return message + (at == null || at.getLineNr() < 1 ? "" : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")");
    }
}
