package io.weightstore.jlama.serve;

/** The two generation endpoints, which differ in their input and in the names of what they return. */
enum Endpoint {
    CHAT("/v1/chat/completions", "messages", "chatcmpl-", "chat.completion", "chat.completion.chunk"),
    COMPLETIONS("/v1/completions", "prompt", "cmpl-", "text_completion", "text_completion");

    final String path;
    /** The request field that holds the prompt, named by errors about its length. */
    final String promptParam;
    final String idPrefix;
    final String object;
    final String chunkObject;

    Endpoint(String path, String promptParam, String idPrefix, String object, String chunkObject) {
        this.path = path;
        this.promptParam = promptParam;
        this.idPrefix = idPrefix;
        this.object = object;
        this.chunkObject = chunkObject;
    }
}
