// The official OpenAI client against `weightstore serve`, as an application would use it.
// OpenAiNodeClientTest starts the server on a tiny synthetic model (random weights: its text is
// noise, but greedy text is deterministic) and sets these variables.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';

const baseURL = required('WEIGHTSTORE_BASE_URL');
const apiKey = required('WEIGHTSTORE_API_KEY');
const model = required('WEIGHTSTORE_MODEL');
const context = Number(required('WEIGHTSTORE_CONTEXT'));

function required(name) {
  const value = process.env[name];
  if (!value) {
    throw new Error(`${name} is not set: run these tests through OpenAiNodeClientTest, which starts the server`);
  }
  return value;
}

// No retries: a retried request would hide what the server answered first.
const client = new OpenAI({ baseURL, apiKey, maxRetries: 0, timeout: 60_000 });
const greedy = { model, temperature: 0 };
const hello = [{ role: 'user', content: 'hello there' }];

async function collect(stream) {
  const chunks = [];
  for await (const chunk of stream) {
    chunks.push(chunk);
  }
  return chunks;
}

async function rejection(promise) {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail('the request succeeded; an error was expected');
}

test('models: list and retrieve, and an unknown id is a NotFoundError', async () => {
  const list = await client.models.list();
  assert.deepEqual(list.data.map((m) => m.id), [model]);
  const one = await client.models.retrieve(model);
  assert.equal(one.id, model);
  assert.equal(one.object, 'model');
  const missing = await rejection(client.models.retrieve('no-such-model'));
  assert.ok(missing instanceof OpenAI.NotFoundError, String(missing));
  assert.equal(missing.code, 'model_not_found');
});

test('completions: streamed text adds up to the whole answer', async () => {
  const whole = await client.completions.create({ ...greedy, prompt: 'once upon a time', max_tokens: 8 });
  assert.equal(whole.object, 'text_completion');
  assert.equal(whole.usage.completion_tokens, 8);
  assert.equal(whole.choices[0].finish_reason, 'length');
  const chunks = await collect(await client.completions.create({ ...greedy, prompt: 'once upon a time', max_tokens: 8, stream: true }));
  assert.equal(chunks.map((c) => c.choices[0]?.text ?? '').join(''), whole.choices[0].text);
  assert.equal(chunks.at(-1).choices[0].finish_reason, 'length');
});

test('chat: streamed deltas start with the assistant role and add up to the whole message', async () => {
  const whole = await client.chat.completions.create({ ...greedy, messages: hello, max_tokens: 8 });
  assert.equal(whole.choices[0].message.role, 'assistant');
  const chunks = await collect(await client.chat.completions.create({ ...greedy, messages: hello, max_tokens: 8, stream: true }));
  assert.equal(chunks[0].choices[0].delta.role, 'assistant');
  assert.equal(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join(''), whole.choices[0].message.content);
});

test('chat: the stream helper assembles the final completion', async () => {
  const whole = await client.chat.completions.create({ ...greedy, messages: hello, max_tokens: 8 });
  const final = await client.chat.completions.stream({ ...greedy, messages: hello, max_tokens: 8 }).finalChatCompletion();
  assert.equal(final.choices[0].message.role, 'assistant');
  assert.equal(final.choices[0].message.content, whole.choices[0].message.content);
  assert.equal(final.choices[0].finish_reason, 'length');
});

test('chat: content as an array of text parts', async () => {
  const parts = await client.chat.completions.create({
    ...greedy,
    max_tokens: 4,
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }, { type: 'text', text: 'there' }] }],
  });
  const joined = await client.chat.completions.create({ ...greedy, max_tokens: 4, messages: [{ role: 'user', content: 'hello\nthere' }] });
  assert.equal(parts.choices[0].message.content, joined.choices[0].message.content);
});

test('stop: the text ends before the stop sequence', async () => {
  const full = (await client.completions.create({ ...greedy, prompt: 'once upon a time', max_tokens: 16 })).choices[0].text;
  const stop = full.slice(6, 8);
  const cut = await client.completions.create({ ...greedy, prompt: 'once upon a time', max_tokens: 16, stop: [stop] });
  assert.equal(cut.choices[0].text, full.slice(0, full.indexOf(stop)));
  assert.equal(cut.choices[0].finish_reason, 'stop');
});

test('n: 2 gives two choices, each generated with its own seed', async () => {
  const two = await client.chat.completions.create({ model, messages: hello, max_tokens: 8, temperature: 1, n: 2, seed: 7 });
  assert.deepEqual(two.choices.map((c) => c.index), [0, 1]);
  assert.notEqual(two.choices[0].message.content, two.choices[1].message.content);
  const again = await client.chat.completions.create({ model, messages: hello, max_tokens: 8, temperature: 1, seed: 8 });
  assert.equal(again.choices[0].message.content, two.choices[1].message.content);
});

test('max_completion_tokens bounds a chat answer', async () => {
  const three = await client.chat.completions.create({ ...greedy, messages: hello, max_completion_tokens: 3 });
  assert.equal(three.usage.completion_tokens, 3);
  assert.equal(three.choices[0].finish_reason, 'length');
});

test('stream_options.include_usage: a last chunk with usage and no choices', async () => {
  const chunks = await collect(await client.chat.completions.create({
    ...greedy, messages: hello, max_tokens: 5, stream: true, stream_options: { include_usage: true },
  }));
  const last = chunks.at(-1);
  assert.deepEqual(last.choices, []);
  assert.equal(last.usage.completion_tokens, 5);
  assert.equal(last.usage.total_tokens, last.usage.prompt_tokens + 5);
});

test('an unsupported parameter is a 400 that names it', async () => {
  for (const [param, value] of [['logprobs', true], ['response_format', { type: 'json_object' }], ['top_logprobs', 2]]) {
    const error = await rejection(client.chat.completions.create({ ...greedy, messages: hello, max_tokens: 2, [param]: value }));
    assert.ok(error instanceof OpenAI.BadRequestError, String(error));
    assert.equal(error.param, param);
    assert.equal(error.type, 'invalid_request_error');
    assert.equal(typeof error.code, 'string');
  }
  const echo = await rejection(client.completions.create({ ...greedy, prompt: 'x', max_tokens: 2, echo: true }));
  assert.equal(echo.param, 'echo');
});

test('a prompt that overflows the context is a 400 context_length_exceeded', async () => {
  const error = await rejection(client.completions.create({ ...greedy, prompt: 'a b '.repeat(context), max_tokens: 1 }));
  assert.ok(error instanceof OpenAI.BadRequestError, String(error));
  assert.equal(error.code, 'context_length_exceeded');
  const tooMuch = await rejection(client.chat.completions.create({ ...greedy, messages: hello, max_tokens: context }));
  assert.equal(tooMuch.code, 'context_length_exceeded');
  assert.equal(tooMuch.param, 'max_tokens');
});

test('a wrong API key is an AuthenticationError', async () => {
  const stranger = new OpenAI({ baseURL, apiKey: `${apiKey}-wrong`, maxRetries: 0 });
  const error = await rejection(stranger.models.list());
  assert.ok(error instanceof OpenAI.AuthenticationError, String(error));
  assert.equal(error.status, 401);
  assert.equal(error.code, 'invalid_api_key');
});
