package io.weightstore.jlama.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class AdmissionQueueTest {
    private final AdmissionQueue queue = new AdmissionQueue(1, 3);

    @Test
    void slotsGoToWaitingRequestsInTheOrderTheyCame() throws Exception {
        AdmissionQueue.Ticket running = queue.enter();
        running.awaitTurn();
        BlockingQueue<String> started = new LinkedBlockingQueue<>();
        BlockingQueue<String> mayFinish = new LinkedBlockingQueue<>();
        List<Thread> requests = new ArrayList<>();
        for (String name : List.of("a", "b", "c")) {
            requests.add(Thread.ofVirtual().start(() -> {
                try (AdmissionQueue.Ticket ticket = queue.enter()) {
                    ticket.awaitTurn();
                    started.add(name);
                    // Holds its slot until the test lets it go, so that the next grant is observable.
                    mayFinish.take();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
            int waiting = requests.size();
            while (queue.waiting() != waiting) {
                Thread.sleep(1);
            }
        }
        assertThat(started).isEmpty();
        running.close();
        for (String expected : List.of("a", "b", "c")) {
            assertThat(started.poll(10, TimeUnit.SECONDS)).isEqualTo(expected);
            assertThat(queue.running()).isEqualTo(1);
            mayFinish.add("go");
        }
        for (Thread request : requests) {
            request.join();
        }
        assertThat(queue.running()).isZero();
        assertThat(queue.waiting()).isZero();
    }

    @Test
    void oneMoreThanRunningAndQueuedIsTurnedAwayAndLeavesNoTrace() throws Exception {
        List<AdmissionQueue.Ticket> tickets = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            tickets.add(queue.enter());
        }
        assertThatThrownBy(queue::enter).isInstanceOf(ApiError.class).hasMessageContaining("--max-queue");
        assertThat(queue.waiting()).isEqualTo(4);
        tickets.removeFirst().close();
        tickets.add(queue.enter());
        tickets.forEach(AdmissionQueue.Ticket::close);
        assertThat(queue.waiting()).isZero();
    }
}
