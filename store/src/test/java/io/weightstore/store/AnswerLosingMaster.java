package io.weightstore.store;

import io.weightstore.store.api.MasterApi;
import io.weightstore.store.api.PutGrant;
import io.weightstore.store.api.StoreException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A master whose answers a test can lose after it acted on the call, as when a master commits a
 * write and dies before its reply leaves: the seal of a put of one key, the reads of keys made
 * unreadable for a while, and a removal of many keys cut short after some, as a master group's
 * removal in parts is when a part fails.
 */
public final class AnswerLosingMaster implements InvocationHandler {
    private final MasterApi master;
    private final Map<String, String> keyOfPut = new ConcurrentHashMap<>();
    private final Set<String> answersToLose = ConcurrentHashMap.newKeySet();
    private final Set<String> unreadable = ConcurrentHashMap.newKeySet();
    private final Set<String> unreadableAfterLoss = ConcurrentHashMap.newKeySet();
    private final AtomicInteger removalCutAfter = new AtomicInteger(-1);
    private final AtomicReference<Callable<?>> beforeRemoval = new AtomicReference<>();

    private AnswerLosingMaster(MasterApi master) {
        this.master = master;
    }

    public static AnswerLosingMaster over(MasterApi master) {
        return new AnswerLosingMaster(master);
    }

    public MasterApi api() {
        return (MasterApi) Proxy.newProxyInstance(MasterApi.class.getClassLoader(), new Class<?>[] {MasterApi.class}, this);
    }

    /** The next seal of a put of {@code key} takes effect and then fails as a lost answer does. */
    public void loseTheAnswerToTheNextSealOf(String key) {
        answersToLose.add(key);
    }

    /** As {@link #loseTheAnswerToTheNextSealOf}, and from then on {@code key} cannot be read until {@link #heal}. */
    public void loseTheAnswerToTheNextSealOfAndThenReadsOf(String key) {
        answersToLose.add(key);
        unreadableAfterLoss.add(key);
    }

    /** The next removal of many keys removes only the first {@code keys} of them, and then fails. */
    public void cutShortTheNextRemovalAfter(int keys) {
        removalCutAfter.set(keys);
    }

    /** Runs {@code action} just before the next removal of many keys reaches the master. */
    public void beforeTheNextRemoval(Callable<?> action) {
        beforeRemoval.set(action);
    }

    /** Every call answers again. */
    public void heal() {
        removalCutAfter.set(-1);
        answersToLose.clear();
        unreadable.clear();
        unreadableAfterLoss.clear();
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        String name = method.getName();
        if ((name.equals("stat") || name.equals("locate")) && unreadable.contains((String) args[0])) {
            throw lost(name + " of " + args[0]);
        }
        Callable<?> before = name.equals("removeAll") ? beforeRemoval.getAndSet(null) : null;
        if (before != null) {
            before.call();
        }
        int cut = name.equals("removeAll") ? removalCutAfter.getAndSet(-1) : -1;
        if (cut >= 0) {
            List<?> keys = (List<?>) args[0];
            Object[] first = args.clone();
            first[0] = keys.subList(0, Math.min(cut, keys.size()));
            try {
                method.invoke(master, first);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
            throw lost("a removal of " + keys.size() + " keys, cut short after " + cut);
        }
        Object answer;
        try {
            answer = method.invoke(master, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
        if (name.equals("putStart")) {
            keyOfPut.put(((PutGrant) answer).putId(), (String) args[0]);
        } else if (name.equals("putEnd")) {
            String key = keyOfPut.remove((String) args[0]);
            if (key != null && answersToLose.remove(key)) {
                if (unreadableAfterLoss.remove(key)) {
                    unreadable.add(key);
                }
                throw lost("the seal of " + key);
            }
        }
        return answer;
    }

    private static StoreException lost(String call) {
        return new StoreException(StoreException.Code.UNAVAILABLE, "the master's answer to " + call + " was lost (injected)");
    }
}
