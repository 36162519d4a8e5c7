"""The lesson snippets' comments and printed texts in each language but English (they are written in it).

Comments are keyed by the English comment's text, printed texts by the English string literal as
written in the code (quotes and f-prefix included), so a snippet's code is stored once in
``linecnn.lesson.snippets`` and only its words change with the reader's language. A snippet
passes its numbers to ``print`` as values, not inside its texts, so they are written the
reader's way (``linecnn.lesson.run``). A test
checks that every comment and every printed literal of every snippet has an entry here, and that
no entry is left over.
"""

COMMENTS: dict[str, dict[str, str]] = {
    "es": {
        "a new tensor starts on the CPU": "un tensor nuevo nace en la CPU",
        ".to() returns a copy on the chosen device": ".to() devuelve una copia en el dispositivo elegido",
        "None here means a CPU-only build of PyTorch": (
            "None aquí significa una compilación de PyTorch solo para CPU"
        ),
        "the training images and their labels, on the CPU": (
            "las imágenes de entrenamiento y sus etiquetas, en la CPU"
        ),
        "the data to the device...": "los datos al dispositivo...",
        "...and the model to the same one": "...y el modelo al mismo",
        "the model moves to the GPU": "el modelo pasa a la GPU",
        "but new data is born on the CPU": "pero los datos nuevos nacen en la CPU",
        "model and data on different devices": "modelo y datos en dispositivos distintos",
        "the fix: data where the model is": "la solución: los datos donde está el modelo",
        "evaluation mode": "modo evaluación",
        "no gradients: less memory, less work": "sin gradientes: menos memoria y menos trabajo",
        "The lesson's one line: the GPU when there is one, else the CPU": (
            "La línea de la lección: la GPU si la hay, si no la CPU"
        ),
        "From here on one name, so the same code runs on either device": (
            "Desde aquí un solo nombre: el mismo código corre en cualquier dispositivo"
        ),
        "a tiny batch, then one a hundred times bigger": "un lote diminuto y luego uno cien veces mayor",
        "warm-up: the first call pays one-time costs": "calentamiento: la primera llamada paga costes únicos",
        "a GPU works in the background: wait before reading the clock": (
            "la GPU trabaja en segundo plano: esperarla antes de leer el reloj"
        ),
        "microseconds per step": "microsegundos por paso",
    },
}

PRINTS: dict[str, dict[str, str]] = {
    "es": {
        '"x lives on:"': '"x está en:"',
        '"after .to(device):"': '"tras .to(device):"',
        '"kind of device:"': '"tipo de dispositivo:"',
        '"CUDA available:"': '"CUDA disponible:"',
        '"GPUs visible:"': '"GPU visibles:"',
        '"GPU 0:"': '"GPU 0:"',
        '"PyTorch"': '"PyTorch"',
        '"built for CUDA"': '"compilado para CUDA"',
        '"before:"': '"antes:"',
        '"after:"': '"después:"',
        '"images:"': '"imágenes:"',
        '"logits on"': '"logits en"',
        '"with shape"': '"con forma"',
        '"validation images:"': '"imágenes de validación:"',
        '"on"': '"en"',
        'f"accuracy before training: {accuracy:.0%}"': 'f"exactitud antes de entrenar: {accuracy:.0%}"',
        '"gradients tracked:"': '"gradientes registrados:"',
        '"the pattern picks:"': '"el patrón elige:"',
        '"| the sidebar picked:"': '"| la barra lateral eligió:"',
        'f"epoch {epoch}: loss"': 'f"época {epoch}: pérdida"',
        '"µs per step,"': '"µs por paso,"',
        '"images/s"': '"imágenes/s"',
    },
}
